// The agent's commands as just-bash custom commands, bound to one run's ports.
import { defineCommand, type CustomCommand } from "just-bash";
import type { CommandIO, AgentCommand } from "./command";
import { COMMANDS, type SandboxPorts } from "./registry";

const decoder = new TextDecoder();

/**
 * just-bash hands stdin over as a ByteString: a string of one char per byte,
 * typed opaquely. Its decoder is not in the browser entry, so decode here.
 */
function stdinText(stdin: unknown): string {
  return decoder.decode(Uint8Array.from(String(stdin), (c) => c.charCodeAt(0) & 0xff));
}

/** The commands as just-bash custom commands, bound to `ports`. `--help` works on every one. */
export function bindCommands(ports: SandboxPorts, commands: readonly AgentCommand<SandboxPorts>[] = COMMANDS): CustomCommand[] {
  return commands.map((cmd) =>
    defineCommand(cmd.name, async (args, ctx) => {
      if (!cmd.nativeHelp && (args[0] === "--help" || args[0] === "-h")) return { stdout: `${cmd.usage}\n`, stderr: "", exitCode: 0 };
      const io: CommandIO = { stdin: stdinText(ctx.stdin), cwd: ctx.cwd, env: ctx.env, fs: ctx.fs, signal: blockSignal(ctx.signal, ports.activity.stopped?.()) };
      try {
        return await cmd.run(args, io, ports);
      } catch (e) {
        // A failing port (storage, network) is the command's failure, not the shell's.
        return { stdout: "", stderr: `${cmd.name}: ${e instanceof Error ? e.message : String(e)}\n`, exitCode: 1 };
      } finally {
        ports.activity.beacon();
      }
    }),
  );
}

/** A command's signal: the interpreter's, and the block's own stop (which comes first: the interpreter is aborted only after a grace). */
function blockSignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  return given.length ? AbortSignal.any(given) : new AbortController().signal;
}
