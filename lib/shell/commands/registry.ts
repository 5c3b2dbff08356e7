// The one list of the agent's commands. The sandbox registers them with
// just-bash; the prompt's command list is generated from their summaries.
import { defineCommand, type CustomCommand } from "just-bash";
import type { ActivityPort, AlarmPort, ChatPort, ClockPort, IdsPort, NetPort, RuntimePort, ShellmPort, TrajPort } from "../ports";
import { alarm } from "./alarm";
import { chat } from "./chat";
import type { AgentCommand, CommandIO } from "./command";
import { focus } from "./focus";
import { glob } from "./glob";
import { mem } from "./mem";
import { mktemp } from "./mktemp";
import { node, npm, npx } from "./node";
import { put } from "./put";
import { shellm } from "./shellm";
import { skills } from "./skills";
import { sub } from "./sub";
import { traj } from "./traj";
import { view } from "./view";
import { yes } from "./yes";

/** Everything any command may be given; each command takes only the part it declares. */
export interface SandboxPorts {
  traj: TrajPort;
  chat: ChatPort;
  shellm: ShellmPort;
  alarms: AlarmPort;
  activity: ActivityPort;
  clock: ClockPort;
  ids: IdsPort;
  net: NetPort;
  runtime: RuntimePort;
}

// Listed by hand (literal imports, so bundlers follow them); order is the prompt's order.
export const COMMANDS: readonly AgentCommand<SandboxPorts>[] = [chat, traj, mem, focus, alarm, skills, view, put, glob, sub, shellm, mktemp, yes, node, npm, npx];

const decoder = new TextDecoder();

/**
 * just-bash hands stdin over as a ByteString: a string of one char per byte,
 * typed opaquely. Its decoder is not in the browser entry, so decode here.
 */
export function stdinText(stdin: unknown): string {
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

/** The command list for the prompt, one `summary` a line. */
export function commandList(commands: readonly AgentCommand<SandboxPorts>[] = COMMANDS): string {
  return commands.map((c) => `- ${c.summary}`).join("\n");
}
