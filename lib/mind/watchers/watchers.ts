// The mind's watchers (issue 24, part 4): programs it wrote itself
// (self/watchers/NAME.sh) that run in its sandbox after each step of the
// types they name, with the step's JSON on stdin. What one prints reaches
// the mind as an observation (source watcher:NAME) that its next call reads.
// They run as its trajectory records them, never as the files are now, so no
// watcher runs without its self-edit step; each runs one run at a time,
// within limits of its own; one that keeps failing is turned off by the
// harness, with a step that says why. Pure over ports: the journal, the
// shell, the clock, and the home's record of the texts.
import type { Step } from "../../trajectory/schema";
import type { Journal } from "../log/journal";
import { trajReader } from "../log/mind-log";
import type { AlarmResult, Clock, ShellPort, ShellResult, ShellScope, ShellSession, WatcherPort, WatcherStats } from "../ports";
import { parseWatcher, WATCHER_SOURCE_PREFIX, watcherSource, withEnabled, type WatcherHeader } from "./file";

/** Failures in a row that turn a watcher off. */
export const FAILURES_TO_DISABLE = 3;
/** Runs `watch logs` can show, per watcher. */
export const RECENT_RUNS = 20;
/** What is kept in memory of one output (the observation has all of it). */
const KEPT_CHARS = 2_000;
const MINUTE_MS = 60_000;

export interface WatcherLimits {
  /** Wall time of one run. */
  wallMs: number;
  /** Bytes of stdout (and of stderr) one run keeps. */
  outputBytes: number;
  /** Runs one watcher may start in any 60 s; past them a step is passed over (counted as skipped). */
  runsPerMinute: number;
}

export interface WatchersDeps {
  /** The mind's root journal: its steps start watchers; their observations and errors are appended there. */
  journal: Journal;
  shell: ShellPort;
  clock: Clock;
  selfName: string;
  /** The watchers as the trajectory records them, by name (lib/home/self-ledger.ts). */
  recorded: () => ReadonlyMap<string, { text: string }>;
  /** The harness writes a watcher's file (to turn it off), recorded as its self-edit before it resolves. */
  rewrite: (name: string, text: string) => Promise<unknown>;
  limits: WatcherLimits;
  /** Where a watcher's shell starts. */
  cwd: string;
}

interface Entry {
  stats: WatcherStats;
  /** When its runs of the last minute were let in (ms). */
  admitted: number[];
  /** Its runs, one after another. */
  chain: Promise<void>;
  session?: ShellSession;
  /** The text its failures in a row were counted against: a changed watcher starts again from none. */
  text?: string;
}

/** Read by the mind in `watch logs`, as a watcher's stderr. */
const NOT_FROM_A_WATCHER = (what: string) => `a watcher cannot ${what}: what it prints reaches you as an observation`;

export class Watchers implements WatcherPort {
  readonly since: number;
  private readonly entries = new Map<string, Entry>();
  private readonly stopped = new AbortController();
  private readonly running = new Set<Promise<void>>();
  /** Headers read, by text. */
  private readonly headers = new Map<string, WatcherHeader>();
  private unsubscribe: (() => void) | null = null;
  private readonly scope: ShellScope;
  /**
   * Where their steps are appended: the mind's trajectory, known as its own,
   * but not counted as its work: a watcher's output never makes an idle wake
   * look busy (which would wake the mind again at once, and the watcher with it).
   */
  private readonly out: Journal;

  constructor(private readonly deps: WatchersDeps) {
    this.since = deps.clock.now();
    this.out = deps.journal.forThinker();
    const refuse = async (): Promise<AlarmResult> => ({ ok: false, error: NOT_FROM_A_WATCHER("set or cancel alarms") });
    // A watcher reads; it does not act: no messages, no nested runs, no alarms.
    this.scope = {
      traj: trajReader(deps.journal.log),
      chat: {
        selfName: deps.selfName,
        replyRefusal: NOT_FROM_A_WATCHER("reply to messages"),
        send: () => Promise.reject(new Error(NOT_FROM_A_WATCHER("send messages"))),
      },
      shellm: { run: async () => ({ ok: false, error: `shellm: ${NOT_FROM_A_WATCHER("start a nested run")}` }) },
      alarms: { set: refuse, cancel: refuse, list: () => Promise.reject(new Error(NOT_FROM_A_WATCHER("read alarms"))) },
      watchers: this,
      depth: 1,
    };
  }

  /** From now on, each step the mind appends to its own trajectory (not a nested run's) is offered. */
  start(): void {
    const root = this.deps.journal.log.trajId;
    this.unsubscribe ??= this.deps.journal.onAppend((step, trajId) => {
      if (trajId === root) this.take(step);
    });
  }

  /** A step that reached the mind from elsewhere (a person's message); one the mind wrote itself was offered as it wrote it. */
  offer(step: Step): void {
    if (!this.deps.journal.wrote(step.step_id)) this.take(step);
  }

  stats(name: string): WatcherStats | undefined {
    const s = this.entries.get(name)?.stats;
    return s && { ...s, recent: [...s.recent] };
  }

  recorded(name: string): string | undefined {
    return this.deps.recorded().get(name)?.text;
  }

  /** Resolves once no run is under way or waiting. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  /** No more runs: the one under way is cut (and records nothing), the waiting ones are dropped. */
  async stop(): Promise<void> {
    this.stopped.abort();
    this.unsubscribe?.();
    await this.idle();
  }

  private take(step: Step): void {
    if (this.stopped.signal.aborted) return;
    // What a watcher printed starts no watcher: no loops.
    if (step.type === "observation" && step.source?.startsWith(WATCHER_SOURCE_PREFIX)) return;
    for (const [name, { text }] of this.deps.recorded()) {
      const header = this.header(text);
      if (!header.ok || !header.enabled || !header.on.includes(step.type)) continue;
      const entry = this.entry(name);
      if (!this.admit(entry)) {
        entry.stats.skipped++;
        continue;
      }
      const run = entry.chain.then(() => this.run(name, step, entry)).catch(() => undefined);
      entry.chain = run;
      this.running.add(run);
      void run.then(() => this.running.delete(run));
    }
  }

  /** A place in the watcher's minute, or none left. */
  private admit(entry: Entry): boolean {
    const now = this.deps.clock.now();
    while ((entry.admitted[0] ?? Infinity) <= now - MINUTE_MS) entry.admitted.shift();
    if (entry.admitted.length >= this.deps.limits.runsPerMinute) return false;
    entry.admitted.push(now);
    return true;
  }

  private async run(name: string, step: Step, entry: Entry): Promise<void> {
    const { clock, limits } = this.deps;
    const journal = this.out;
    const signal = this.stopped.signal;
    if (signal.aborted) return;
    // As recorded now: one turned off or removed since the step came makes no more runs.
    const text = this.deps.recorded().get(name)?.text;
    const header = text === undefined ? undefined : this.header(text);
    if (text === undefined || !header?.ok || !header.enabled || !header.on.includes(step.type)) return;
    const s = entry.stats;
    if (entry.text !== text) {
      entry.text = text;
      s.failuresInRow = 0;
    }
    entry.session ??= this.deps.shell.open(this.scope);
    const at = clock.now();
    const r = await entry.session.exec(text, {
      env: { WATCHER: name },
      cwd: this.deps.cwd,
      signal,
      stdin: `${JSON.stringify(step)}\n`,
      limits: { wallMs: limits.wallMs, outputBytes: limits.outputBytes },
    });
    if (signal.aborted) return;
    const output = r.stdout.trimEnd();
    const failed = failure(r, limits.wallMs);
    s.runs++;
    s.recent.push({ at, output: kept(output), stderr: kept(r.stderr.trimEnd()), ...(failed ? { failed } : {}) });
    if (s.recent.length > RECENT_RUNS) s.recent.shift();
    if (output) {
      s.outputs++;
      // just-bash hands stdin to every command as a string, so whether a watcher read it cannot be seen; printing the same whatever the step can.
      s.samePrinted = s.lastOutput?.text === kept(output) ? (s.samePrinted ?? 0) + 1 : 0;
      s.lastOutput = { at, text: kept(output) };
      await journal.append({ type: "observation", content: output, source: watcherSource(name), trigger_step: step.step_id });
    }
    if (!failed) {
      s.failuresInRow = 0;
      return;
    }
    s.failures++;
    s.failuresInRow++;
    s.lastError = { at, text: failed };
    if (s.failuresInRow < FAILURES_TO_DISABLE) return;
    const off = withEnabled(text, { enabled: false, why: `failed ${s.failuresInRow} times in a row: ${failed}` });
    if (off === undefined) return;
    await this.deps.rewrite(name, off);
    await journal.append({
      type: "error",
      reason: "watcher-failed",
      content: `My watcher ${name} failed ${s.failuresInRow} times in a row (the last: ${failed}), so my harness turned it off ('# enabled: no' in self/watchers/${name}.sh). \`watch show ${name}\` says more; \`watch enable ${name}\` turns it on again.`,
      source: "system",
    });
  }

  private entry(name: string): Entry {
    let e = this.entries.get(name);
    if (!e) {
      e = { stats: { runs: 0, outputs: 0, failures: 0, failuresInRow: 0, skipped: 0, recent: [] }, admitted: [], chain: Promise.resolve() };
      this.entries.set(name, e);
    }
    return e;
  }

  private header(text: string): WatcherHeader {
    let h = this.headers.get(text);
    if (!h) {
      // Old texts are not worth keeping: a mind has a few watchers, each changed now and then.
      if (this.headers.size > 64) this.headers.clear();
      h = parseWatcher(text);
      this.headers.set(text, h);
    }
    return h;
  }
}

/** Why a run failed, in one line, or undefined when it did not. */
function failure(r: ShellResult, wallMs: number): string | undefined {
  if (r.timedOut) return `stopped after ${wallMs / 1000} s, a watcher's wall-time limit`;
  if (r.exit === 0) return undefined;
  const said = r.stderr.split("\n").find((l) => l.trim() !== "")?.trim();
  return `exit ${r.exit}${said ? `: ${said.length > 200 ? `${said.slice(0, 199)}…` : said}` : ""}`;
}

const kept = (s: string) => (s.length > KEPT_CHARS ? `${s.slice(0, KEPT_CHARS - 1)}…` : s);
