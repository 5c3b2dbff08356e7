// Real Node on the page: one WebContainer, booted with a time limit, shared
// by every mind running in the tab (the API allows one per page), each mind
// in its own space (see ./paths). Pure over the boot function and a clock,
// so tests drive it with a fake of the API and a fake clock.
//
// A spawn copies the worker's changed files in, runs the command with the
// mind's network guard (see ./net-guard), collects its terminal output, and
// copies back what the process changed. A process that outlives its limits
// is killed; one that ignores the kill takes the container with it:
// teardown, boot again, write the spaces back.
import type { Clock } from "../../mind/ports";
import { cutUtf8 } from "../../trajectory/large-output";
import type { RuntimeStatus, SpawnRequest, SpawnResult } from "../ports";
import type { BootFn, WebContainerLike, WebContainerProcessLike } from "./api";
import { WEBCONTAINER_LIMITS, type WebContainerLimits } from "../limits";
import { SpaceMirror } from "./mirror";
import { GUARD_FILE, guardedEnv, writeNetGuard } from "./net-guard";
import { inSpace, WORKSPACE, workspaceRelative } from "./paths";
import { notRun } from "./results";
import { terminalText } from "./terminal";

const KILLED_EXIT = 137;
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

type Outcome = { kind: "exit"; code: number } | { kind: "limit"; why: string } | { kind: "torn-down" };

export class WebContainerRuntime {
  private wc: WebContainerLike | null = null;
  private current: RuntimeStatus = { state: "off" };
  private attempt: Promise<void> | null = null;
  /** Bumped at each boot; a space written in an older boot is written again. */
  private epoch = 0;
  /** Resolves when the current container is torn down, ending every process in it. */
  private gone = deferred();
  private unlisten: () => void = () => {};
  private readonly spaces = new Map<string, { mirror: SpaceMirror; queue: Promise<unknown> }>();
  private readonly listeners = new Set<(s: RuntimeStatus) => void>();
  private readonly limits: WebContainerLimits;

  constructor(
    private readonly bootFn: BootFn,
    private readonly clock: Pick<Clock, "sleep">,
    limits: Partial<WebContainerLimits> = {},
  ) {
    this.limits = { ...WEBCONTAINER_LIMITS, ...limits };
  }

  status(): RuntimeStatus {
    return this.current;
  }

  subscribe(listener: (s: RuntimeStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Boot, or wait for the boot under way, at most `bootTimeoutMs`. A boot
   * that finishes after its time is still taken (status turns ready then).
   */
  async boot(): Promise<RuntimeStatus> {
    if (this.wc && this.current.state === "ready") return this.current;
    this.setStatus({ state: "booting" });
    this.attempt ??= Promise.resolve()
      .then(() => this.bootFn())
      .then(
        (wc) => this.adopt(wc),
        (e) => this.setStatus({ state: "unavailable", reason: `the WebContainer failed to boot (${message(e)})` }),
      )
      .finally(() => (this.attempt = null));
    const timer = new AbortController();
    const late = await Promise.race([this.attempt.then(() => false), this.clock.sleep(this.limits.bootTimeoutMs, timer.signal).then(() => true)]);
    timer.abort();
    if (late && this.current.state === "booting") {
      const s = this.limits.bootTimeoutMs / 1000;
      this.setStatus({ state: "unavailable", reason: `the WebContainer did not boot within ${s} s (StackBlitz's servers could not be reached?)` });
    }
    return this.current;
  }

  /** A new worker for this space: its first request lists the whole workspace. */
  forget(space: string): void {
    this.spaceOf(space).mirror.full = true;
  }

  /**
   * Spawns in one space run one after another, so each copy-back sees only
   * its own process. `allow`: the mind's network allow-list (empty: none).
   * `onOutput` hears each chunk of output as it comes.
   */
  spawn(req: SpawnRequest, signal: AbortSignal, opts: { space: string; allow: readonly string[]; onOutput?: () => void }): Promise<SpawnResult> {
    const space = this.spaceOf(opts.space);
    const run = space.queue.then(() => this.run(req, signal, space.mirror, opts.allow, opts.onOutput));
    space.queue = run.catch(() => undefined);
    return run;
  }

  private async run(req: SpawnRequest, signal: AbortSignal, mirror: SpaceMirror, allow: readonly string[], onOutput?: () => void): Promise<SpawnResult> {
    const wc = this.wc;
    if (!wc || this.current.state !== "ready") return notRun(`the WebContainer is ${this.current.state}`);
    if (signal.aborted) return notRun("the block was stopped first");
    const gone = this.gone.promise;
    try {
      if (mirror.epoch !== this.epoch) await mirror.restore(wc.fs);
      mirror.epoch = this.epoch;
      await mirror.apply(wc.fs, req.files);
    } catch (e) {
      return notRun(`the workspace could not be copied into the WebContainer (${message(e)})`);
    }
    try {
      await writeNetGuard(wc.fs);
    } catch (e) {
      return notRun(`the network guard could not be written into the WebContainer (${message(e)})`);
    }

    // Processes see the space as an absolute path; map /workspace in and back out.
    const root = `${wc.workdir}/${mirror.space}`;
    const toContainer = (s: string) => s.replace(WORKSPACE_MENTION, (_, before: string) => `${before}${root}`);
    const cwd = inSpace(mirror.space, workspaceRelative(req.cwd) ?? "");
    let proc: WebContainerProcessLike;
    try {
      await wc.fs.mkdir(cwd, { recursive: true });
      const mindEnv = Object.fromEntries(Object.entries(req.env).map(([k, v]) => [k, toContainer(v)]));
      const env = guardedEnv(mindEnv, allow, `${wc.workdir}/${GUARD_FILE}`);
      proc = await wc.spawn(req.command, req.args.map(toContainer), { cwd, env });
    } catch (e) {
      return { output: `${req.command}: ${message(e)}\n`, exit: 127, files: [] };
    }

    const output = new OutputCollector(this.limits.maxOutputBytes, onOutput);
    const pump = output.pump(proc.output);
    const finished = await this.outcome(proc, signal, output, gone);
    const text = () => terminalText(output.text).split(root).join(WORKSPACE);

    const tornDown = () => ({ output: text(), exit: KILLED_EXIT, files: [], ended: "killed: the WebContainer was torn down (a process would not stop)" });
    if (finished.kind === "torn-down") return tornDown();
    let exit = finished.kind === "exit" ? finished.code : KILLED_EXIT;
    let ended: string | undefined;
    if (finished.kind === "limit") {
      proc.kill();
      const code = await this.within(this.limits.killGraceMs, Promise.race([proc.exit.catch(() => KILLED_EXIT), gone.then(() => null)]));
      if (code === null) return tornDown();
      if (code === undefined) {
        // It ignored the kill: only a new container ends it. What it changed is lost with the old one.
        const after = await this.reboot();
        const how = after.state === "ready" ? "booted again" : `could not boot again: ${after.state === "unavailable" ? after.reason : after.state}`;
        return { output: text(), exit: KILLED_EXIT, files: [], ended: `killed: ${finished.why} (the WebContainer was torn down and ${how})` };
      }
      exit = code;
      ended = `killed: ${finished.why}`;
    }
    await this.within(this.limits.drainMs, pump);
    let files: SpawnResult["files"] = [];
    let note = "";
    try {
      files = await mirror.readBack(wc.fs);
    } catch (e) {
      note = `[reverie] the files the process wrote could not be copied back (${message(e)})\n`;
    }
    return { output: text() + note, exit, files, ...(ended ? { ended } : {}) };
  }

  /** The first of: exit, the block's stop, the wall limit, the output cap, a teardown. */
  private async outcome(proc: WebContainerProcessLike, signal: AbortSignal, output: OutputCollector, gone: Promise<void>): Promise<Outcome> {
    const timers = new AbortController();
    const wallS = this.limits.wallMs / 1000;
    const result = await Promise.race<Outcome>([
      proc.exit.then(
        (code) => ({ kind: "exit", code }),
        () => ({ kind: "exit", code: 1 }),
      ),
      aborted(signal, timers.signal).then(() => ({ kind: "limit", why: "the block was stopped" })),
      this.clock.sleep(this.limits.wallMs, timers.signal).then(() => ({ kind: "limit", why: `it ran longer than ${wallS} s` })),
      output.full.then(() => ({ kind: "limit", why: `its output passed ${this.limits.maxOutputBytes} bytes` })),
      gone.then(() => ({ kind: "torn-down" })),
    ]);
    timers.abort();
    return result;
  }

  /** `p`'s value, or undefined if it takes longer than `ms`. */
  private async within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
    const timer = new AbortController();
    const r = await Promise.race([p.then((value) => ({ value })), this.clock.sleep(ms, timer.signal).then(() => undefined)]);
    timer.abort();
    return r?.value;
  }

  private adopt(wc: WebContainerLike): void {
    this.wc = wc;
    this.epoch++;
    this.gone = deferred();
    this.unlisten = wc.on("error", (e) => {
      if (this.wc !== wc) return;
      this.dropContainer();
      this.setStatus({ state: "unavailable", reason: `the WebContainer stopped with an error (${e.message})` });
    });
    this.setStatus({ state: "ready" });
  }

  private dropContainer(): void {
    const wc = this.wc;
    this.wc = null;
    this.unlisten();
    this.gone.resolve();
    try {
      wc?.teardown();
    } catch {
      // Already unusable: nothing more to release.
    }
  }

  private reboot(): Promise<RuntimeStatus> {
    this.dropContainer();
    return this.boot();
  }

  private setStatus(status: RuntimeStatus): void {
    this.current = status;
    for (const l of this.listeners) l(status);
  }

  private spaceOf(space: string) {
    let s = this.spaces.get(space);
    if (!s) this.spaces.set(space, (s = { mirror: new SpaceMirror(space), queue: Promise.resolve() }));
    return s;
  }
}

/** `/workspace` as a path of its own (not `/workspaces` or `x/workspace`), in an argument or a variable. */
const WORKSPACE_MENTION = new RegExp(`(^|[^\\w./-])${WORKSPACE.replace(/\//g, "\\/")}(?=/|$|[^\\w.-])`, "g");

/** Terminal output up to a byte cap; `full` resolves when the cap is passed. */
class OutputCollector {
  text = "";
  private bytes = 0;
  private readonly encoder = new TextEncoder();
  private readonly cap = deferred();
  readonly full = this.cap.promise;

  constructor(
    private readonly max: number,
    private readonly onChunk: () => void = () => {},
  ) {}

  async pump(stream: ReadableStream<string>): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || !this.add(value)) break;
        this.onChunk();
      }
    } catch {
      // The stream broke with its process: keep what came.
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  private add(chunk: string): boolean {
    const n = this.encoder.encode(chunk).length;
    if (this.bytes + n <= this.max) {
      this.text += chunk;
      this.bytes += n;
      return true;
    }
    this.text += cutUtf8(chunk, this.max - this.bytes);
    this.bytes = this.max;
    this.cap.resolve();
    return false;
  }
}

function aborted(signal: AbortSignal, cancel: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true, signal: cancel });
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
