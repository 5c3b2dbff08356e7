// The default sandbox: just-bash over the persistent workspace, with the
// agent's own commands. just-bash resets env and cwd on every exec, so the
// caller passes them in and reads them back from the result.
import { Bash, defineCommand, type IFileSystem } from "just-bash";
import type { AgentTools, ShellPort, ShellRequest, ShellResult } from "../mind/ports";
import { chat } from "./commands/chat";
import { traj } from "./commands/traj";
import { cutUtf8 } from "../trajectory/large-output";
import { JUST_BASH_LIMITS, SHELL_LIMITS, WORKSPACE } from "./limits";

const TIMEOUT_EXIT = 124;
const decoder = new TextDecoder();

/**
 * just-bash hands stdin over as a ByteString: a string of one char per byte,
 * typed opaquely. Its decoder is not in the browser entry, so decode here.
 */
function stdinText(stdin: unknown): string {
  return decoder.decode(Uint8Array.from(String(stdin), (c) => c.charCodeAt(0) & 0xff));
}

export interface SandboxOptions {
  fs: IFileSystem;
  tools: AgentTools;
  /** Saves the workspace after each exec; its failure is reported in stderr. */
  flush: () => Promise<void>;
  now?: () => number;
}

export function justBashSandbox(opts: SandboxOptions): ShellPort {
  const now = opts.now ?? (() => performance.now());
  const bash = new Bash({
    fs: opts.fs,
    cwd: WORKSPACE,
    env: { HOME: WORKSPACE },
    executionLimits: JUST_BASH_LIMITS,
    customCommands: [
      defineCommand("chat", (args, ctx) => chat(args, stdinText(ctx.stdin), opts.tools)),
      defineCommand("traj", (args) => traj(args, opts.tools)),
    ],
  });
  let ready: Promise<void> | null = null;
  // The filesystem starts bare; scripts expect /tmp to exist as well as the workspace.
  const ensureWorkspace = () =>
    (ready ??= (async () => {
      await opts.fs.mkdir(WORKSPACE, { recursive: true });
      await opts.fs.mkdir("/tmp", { recursive: true });
    })());

  return {
    async exec(code: string, req: ShellRequest): Promise<ShellResult> {
      const started = now();
      await ensureWorkspace();
      const timeout = AbortSignal.timeout(SHELL_LIMITS.timeoutMs);
      const signal = AbortSignal.any([req.signal, timeout]);
      const cwd = (await opts.fs.exists(req.cwd).catch(() => false)) ? req.cwd : WORKSPACE;
      let result: { stdout: string; stderr: string; exit: number; env: Record<string, string> };
      try {
        const r = await bash.exec(code, { env: { HOME: WORKSPACE, ...req.env }, cwd, signal, rawScript: true });
        result = { stdout: r.stdout, stderr: r.stderr, exit: r.exitCode, env: r.env };
      } catch (e) {
        // The interpreter itself failed (a bug or a limit it throws on): report as a failed command.
        result = { stdout: "", stderr: `[reverie] the shell failed: ${e instanceof Error ? e.message : String(e)}\n`, exit: 2, env: req.env };
      }
      const timedOut = timeout.aborted && !req.signal.aborted;
      let stderr = limitOutput(result.stderr, "stderr");
      if (timedOut) stderr += `[reverie] stopped after ${SHELL_LIMITS.timeoutMs / 1000} s (time limit)\n`;
      try {
        await opts.flush();
      } catch (e) {
        stderr += `[reverie] the workspace could not be saved (${e instanceof Error ? e.message : String(e)}); files written in this block may be lost on reload\n`;
      }
      return {
        stdout: limitOutput(result.stdout, "stdout"),
        stderr,
        exit: timedOut ? TIMEOUT_EXIT : result.exit,
        env: result.env,
        cwd: result.env.PWD ?? cwd,
        timedOut,
        execS: (now() - started) / 1000,
      };
    },
  };
}

function limitOutput(text: string, name: string): string {
  const max = SHELL_LIMITS.maxOutputBytes;
  if (text.length <= max / 4) return text; // fast path: cannot exceed max bytes
  const cut = cutUtf8(text, max);
  if (cut.length === text.length) return text;
  return `${cut}\n[reverie] ${name} cut at ${max} bytes\n`;
}
