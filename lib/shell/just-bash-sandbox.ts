// The default sandbox: just-bash over the persistent workspace, with the
// agent's own commands. Each run opens a session (its own interpreter, bound
// to that run's scope), so a nested run never shares its parent's shell.
// just-bash resets env and cwd on every exec, so the caller passes them in
// and reads them back from the result.
import { Bash, defineCommand, type IFileSystem, type SecureFetch } from "just-bash";
import type { ShellPort, ShellRequest, ShellResult, ShellScope, ShellSession, WatcherPort } from "../mind/ports";
import type { Permissions } from "../trajectory/permissions";
import { cutUtf8 } from "../trajectory/large-output";
import { bindCommands } from "./commands/bind";
import { COMMANDS } from "./commands/registry";
import type { AgentCommand } from "./commands/command";
import type { SandboxPorts } from "./commands/registry";
import { FIXED_LIMITS, justBashLimits, WORKSPACE } from "./limits";
import { allowListNet, type FetchFn } from "./net";
import type { ClockPort, IdsPort, NetPort, RuntimePort } from "./ports";
import { guardSelf, type SelfWrites } from "./self/guard";
import { limitNamed, softStop } from "./stop";
import { startWatchdog, type StopReason } from "./watchdog";

const TIMEOUT_EXIT = 124;
// just-bash's defense-in-depth blocks the global timers while a script runs,
// and the `sleep` hook runs inside the script: take them before any does.
const setTimer = globalThis.setTimeout.bind(globalThis);
const clearTimer = globalThis.clearTimeout.bind(globalThis);

export interface SandboxOptions {
  fs: IFileSystem;
  /** Saves the workspace after each exec; its failure is reported in stderr. */
  flush: () => Promise<void>;
  permissions: Permissions;
  ids: IdsPort;
  /** Wall-clock time for the commands (memory dates); `now` times the blocks. */
  clock: ClockPort;
  now?: () => number;
  fetch?: FetchFn;
  /** A host's own network, used instead of what `permissions.network` and `fetch` would give (the server runner's: lib/server/runner/network.ts). */
  network?: SandboxNetwork;
  runtime?: RuntimePort;
  /** Commands to offer; the registry's by default. */
  commands?: readonly AgentCommand<SandboxPorts>[];
}

/** curl's fetch, which checks every URL and redirect itself, and the agent's commands' network; curl is never replaced by "network is off". */
export interface SandboxNetwork {
  fetch: SecureFetch;
  net: NetPort;
}

const NO_RUNTIME: RuntimePort = {
  status: () => ({ state: "off" }),
  spawn: async () => ({ output: "", exit: 127, files: [], ended: "no runtime" }),
};

/** Where no watchers run (a command-line shell): `watch` still reads and writes their files. */
const NO_WATCHERS: WatcherPort = { since: 0, stats: () => undefined, recorded: () => undefined };

const networkOff = (name: string) =>
  defineCommand(name, async () => ({
    stdout: "",
    stderr: `${name}: the network is off for this mind. Its human can allow URL prefixes in Settings; nothing inside the sandbox can.\n`,
    exitCode: 1,
  }));

const STOP_NOTES: Record<StopReason, (s: number) => string> = {
  silence: (s) => `[reverie] stopped: no sign of life for ${s} s (the watchdog); the output above is what it printed before`,
  wall: (s) => `[reverie] stopped: the block ran for ${s} s (the wall-time limit); the output above is what it printed before`,
};

const LIMIT_NOTES: Record<string, string> = {
  commands: "[reverie] ended by the command limit (max_commands per block)",
  output: "[reverie] ended by the output limit",
  recursion: "[reverie] ended by the recursion limit",
  wall: "[reverie] ended by the interpreter's time limit",
};

export function justBashSandbox(opts: SandboxOptions): ShellPort {
  const now = opts.now ?? (() => performance.now());
  const limits = opts.permissions.limits;
  const allow = opts.permissions.network.allow;
  let ready: Promise<void> | null = null;
  // The minute's writes to self/ are the mind's, whichever run made them.
  const selfWrites: SelfWrites = { times: [] };
  // The filesystem starts bare; scripts expect /tmp to exist as well as the workspace.
  const ensureWorkspace = () =>
    (ready ??= (async () => {
      await opts.fs.mkdir(WORKSPACE, { recursive: true });
      await opts.fs.mkdir("/tmp", { recursive: true });
    })());

  return {
    open(scope: ShellScope): ShellSession {
      /** The block under way: its watchdog and the signal that wakes a sleeping script when it is stopped. */
      let current: { beacon: () => void; stopped: AbortSignal } | null = null;
      const guard = guardSelf(opts.fs, { now: () => opts.clock.now(), writes: selfWrites });
      const ports: SandboxPorts = {
        ...scope,
        watchers: scope.watchers ?? NO_WATCHERS,
        activity: { beacon: () => current?.beacon(), stopped: () => current?.stopped },
        clock: opts.clock,
        ids: opts.ids,
        net: opts.network?.net ?? allowListNet(allow, opts.fetch),
        runtime: opts.runtime ?? NO_RUNTIME,
      };
      const bash = new Bash({
        fs: guard.fs,
        cwd: WORKSPACE,
        env: { HOME: WORKSPACE },
        executionLimits: justBashLimits(limits),
        ...(opts.network ? { fetch: opts.network.fetch } : allow.length > 0 ? { network: { allowedUrlPrefixes: [...allow] } } : {}),
        // A stopped block's `sleep` ends at once, so the script reaches its next command and ends there.
        sleep: (ms) => sleepUnless(ms, current?.stopped),
        customCommands: [...(opts.network || allow.length > 0 ? [] : [networkOff("curl"), networkOff("wget")]), ...bindCommands(ports, opts.commands ?? COMMANDS)],
      });

      return {
        async exec(code: string, req: ShellRequest): Promise<ShellResult> {
          const started = now();
          // A watcher's run has tighter limits than the mind's blocks.
          const wallMs = req.limits?.wallMs ?? limits.wall_s * 1000;
          const outputBytes = req.limits?.outputBytes ?? limits.max_output_bytes;
          await ensureWorkspace();
          const soft = new AbortController();
          const hard = new AbortController();
          let restore = () => {};
          let grace: ReturnType<typeof setTimer> | undefined;
          const watchdog = startWatchdog({
            silenceMs: limits.silence_s * 1000,
            wallMs,
            onStop: () => {
              restore = softStop(bash).restore;
              soft.abort();
              grace = setTimer(() => hard.abort(), FIXED_LIMITS.stopGraceMs);
            },
          });
          current = { beacon: () => watchdog.beacon(), stopped: soft.signal };
          const cwd = (await opts.fs.exists(req.cwd).catch(() => false)) ? req.cwd : WORKSPACE;
          let result: { stdout: string; stderr: string; exit: number; env: Record<string, string> };
          try {
            // The braces make just-bash keep the output of the statements that finished when a later one is stopped.
            const r = await bash.exec(`{\n${code}\n}`, {
              env: { HOME: WORKSPACE, ...req.env },
              cwd,
              signal: AbortSignal.any([req.signal, hard.signal]),
              rawScript: true,
              ...(req.stdin !== undefined ? { stdin: req.stdin } : {}),
            });
            result = { stdout: r.stdout, stderr: r.stderr, exit: r.exitCode, env: r.env };
          } catch (e) {
            // The interpreter itself failed (a bug or a limit it throws on): report as a failed command.
            result = { stdout: "", stderr: `[reverie] the shell failed: ${e instanceof Error ? e.message : String(e)}\n`, exit: 2, env: req.env };
          } finally {
            watchdog.dispose();
            clearTimer(grace);
            restore();
            current = null;
          }
          const stoppedBy = req.signal.aborted ? null : watchdog.reason;
          const limit = stoppedBy ?? limitNamed(result.stderr);
          let stderr = limitOutput(result.stderr, "stderr", outputBytes);
          if (stoppedBy) {
            stderr = stderr.replace(/^bash: (too many commands executed|.*too many iterations|.*execution aborted).*\n/m, "");
            stderr += `${STOP_NOTES[stoppedBy](stoppedBy === "silence" ? limits.silence_s : wallMs / 1000)}${hard.signal.aborted ? " (it did not end by itself and was aborted; what the command under way printed is lost)" : ""}\n`;
          } else if (limit && LIMIT_NOTES[limit]) {
            stderr += `${LIMIT_NOTES[limit]}\n`;
          }
          const selfRefused = guard.takeRefused();
          // Some commands hide why a change to self/ failed (rm -f says nothing, tee and sed say "No such file"): say it once.
          for (const m of guard.takeMessages()) if (!result.stderr.includes(m)) stderr += `[reverie] ${m}\n`;
          try {
            await opts.flush();
          } catch (e) {
            stderr += `[reverie] the workspace could not be saved (${e instanceof Error ? e.message : String(e)}); files written in this block may be lost on reload\n`;
          }
          return {
            stdout: limitOutput(result.stdout, "stdout", outputBytes),
            stderr,
            exit: stoppedBy ? TIMEOUT_EXIT : result.exit,
            env: result.env,
            cwd: result.env.PWD ?? cwd,
            timedOut: stoppedBy !== null,
            execS: (now() - started) / 1000,
            ...(limit ? { limit } : {}),
            ...(selfRefused > 0 ? { selfRefused } : {}),
          };
        },
      };
    },
  };
}

function sleepUnless(ms: number, stopped: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (stopped?.aborted) return resolve();
    const done = () => {
      clearTimer(timer);
      stopped?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimer(done, ms);
    stopped?.addEventListener("abort", done, { once: true });
  });
}

function limitOutput(text: string, name: string, max: number): string {
  if (text.length <= max / 4) return text; // fast path: cannot exceed max bytes
  const cut = cutUtf8(text, max);
  if (cut.length === text.length) return text;
  return `${cut}\n[reverie] ${name} cut at ${max} bytes\n`;
}
