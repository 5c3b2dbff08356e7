// A mind's whole life as its live share link shows it, for the runner fault
// test: a watcher that reads the link as it grows (every step it ever saw,
// when it first saw it), and the checks over the life at the end — nothing
// lost, nothing doubled, no write from a stale epoch, every run closed, no
// wake without an epoch once the mind was leased, and within each trajectory
// stored order is time order.
import { StepPage } from "@/lib/sharing/wire";
import { isKind, parseStep, type Step } from "@/lib/trajectory/schema";

export interface LinkRow {
  seq: number;
  traj: string;
  step: Step;
}

export interface SeenRow extends LinkRow {
  /** When the watcher first read it (ms). */
  seenAt: number;
}

/** Every step of the link after `after`, page by page, parsed. */
export async function readLink(appUrl: string, token: string, after = 0): Promise<LinkRow[]> {
  const out: LinkRow[] = [];
  for (;;) {
    const res = await fetch(`${appUrl}/api/share/${token}/steps?after=${after}&limit=2000`, { signal: AbortSignal.timeout(20_000) });
    if (!res.ok) throw new Error(`reading the live link: HTTP ${res.status}`);
    const page = StepPage.parse(await res.json());
    if (!page.steps.length) return out;
    for (const w of page.steps) {
      const parsed = parseStep(JSON.parse(w.json));
      if (!parsed.ok) throw new Error(`the link's step at seq ${w.seq} does not parse: ${parsed.error}`);
      out.push({ seq: w.seq, traj: w.traj, step: parsed.step });
    }
    after = page.steps[page.steps.length - 1]!.seq;
  }
}

export interface LinkWatch {
  /** Every row seen, in seq order. */
  readonly rows: readonly SeenRow[];
  /** What the watcher saw go wrong while it read (a seq skipped and filled in later would be one). */
  readonly problems: readonly string[];
  stop(): Promise<void>;
}

/** Read the link's new steps every `pollMs`, keeping each with the time it was first seen. */
export function watchLink(appUrl: string, token: string, pollMs = 250): LinkWatch {
  const rows: SeenRow[] = [];
  const problems: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const last = rows.at(-1)?.seq ?? 0;
      try {
        const fresh = await readLink(appUrl, token, last);
        const at = Date.now();
        let expect = last + 1;
        for (const r of fresh) {
          if (r.seq !== expect) problems.push(`the link went from seq ${expect - 1} to ${r.seq} at ${new Date(at).toISOString()}`);
          expect = r.seq + 1;
          rows.push({ ...r, seenAt: at });
        }
      } catch (e) {
        // The app is busy or restarting a request: read again next time (a failure that lasts shows as a slow recovery).
        if (problems.length < 50) problems.push(`reading the link failed once: ${e instanceof Error ? e.message : String(e)}`);
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  })();
  return {
    rows,
    problems,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * A run's own steps: a prompt, then blocks (reasoning, its output, maybe
 * feedback), then one ending; a run cut off stops after any step and then
 * has its error (as in faults.test.ts).
 */
export const RUN_SHAPE = /^(error|prompt(,reasoning,shell-output(,feedback)?)*(,final|,thought|,error|,reasoning,error))$/;
const isRunEnd = (s: Step) => s.type === "final" || s.type === "error" || s.type === "thought";
const short = (id: string) => id.slice(0, 8);

export interface LifeFacts {
  /** The mind's own trajectory (its tab's id for it). */
  root: string;
  /** Trajectories the tab made for steps it wrote after it had lost the lease ("cut off in this tab"). */
  aside: ReadonlySet<string>;
  /** Each lease epoch's holder, as the test saw the lease row (runner:… or tab:…); epochs it missed are absent. */
  holders: ReadonlyMap<number, string>;
  /** Every row the watcher saw during the run. */
  seen: readonly SeenRow[];
}

export interface LifeReport {
  problems: string[];
  main: LinkRow[];
  asideSteps: number;
  wakes: { tab: number; server: number; epochs: number };
  runs: number;
  interrupted: number;
  stopped: number;
}

/** The whole-life checks of the runner fault test, over every row of the link at the end. */
export function checkLife(all: readonly LinkRow[], facts: LifeFacts): LifeReport {
  const problems: string[] = [];
  // Seqs 1..n, no step twice.
  const gap = all.findIndex((r, i) => r.seq !== i + 1);
  if (gap >= 0) problems.push(`seq gap: position ${gap + 1} holds seq ${all[gap]?.seq}`);
  const ids = new Map<string, number>();
  for (const r of all) {
    const before = ids.get(r.step.step_id);
    if (before !== undefined) problems.push(`step ${short(r.step.step_id)} is there twice (seq ${before} and ${r.seq})`);
    ids.set(r.step.step_id, r.seq);
  }
  // Nothing the link ever showed is gone, or moved.
  for (const s of facts.seen) {
    const now = ids.get(s.step.step_id);
    if (now === undefined) problems.push(`step ${short(s.step.step_id)} (${s.step.type}, seen at seq ${s.seq}) is lost`);
    else if (now !== s.seq) problems.push(`step ${short(s.step.step_id)} moved from seq ${s.seq} to ${now}`);
  }
  const strays = [...new Set(all.filter((r) => r.traj !== facts.root && !facts.aside.has(r.traj)).map((r) => r.traj))];
  if (strays.length) problems.push(`steps in trajectories that are neither the mind's nor set aside: ${strays.join(", ")}`);

  // Set aside is the tab's own doing (its steps after it lost the lease): never a runner's.
  for (const r of all) if (facts.aside.has(r.traj) && isKind(r.step, "wake") && r.step.home === "server") problems.push(`a server wake at seq ${r.seq} was set aside`);
  const main = all.filter((r) => r.traj === facts.root);
  const pos = new Map(main.map((r, i) => [r.step.step_id, i]));

  // Wakes: once one carries an epoch, all do; epochs never go back; each epoch is one home, the kind of its holder.
  const wakes = main.flatMap((r, i) => (isKind(r.step, "wake") ? [{ i, seq: r.seq, step: r.step }] : []));
  const leased = wakes.findIndex((w) => w.step.epoch !== undefined);
  const homeOf = new Map<number, string>();
  const firstWakeOf = new Map<number, number>();
  let top = 0;
  for (const w of leased < 0 ? [] : wakes.slice(leased)) {
    const { epoch, home } = w.step;
    if (epoch === undefined || home === undefined) {
      problems.push(`wake at seq ${w.seq} carries no ${epoch === undefined ? "epoch" : "home"} after the mind was leased`);
      continue;
    }
    if (epoch < top) problems.push(`wake at seq ${w.seq} has epoch ${epoch} after a wake of epoch ${top} (${home}): a stale home wrote`);
    top = Math.max(top, epoch);
    const had = homeOf.get(epoch);
    if (had && had !== home) problems.push(`epoch ${epoch} has wakes from two homes (${had}, then ${home} at seq ${w.seq})`);
    homeOf.set(epoch, home);
    if (!firstWakeOf.has(epoch)) firstWakeOf.set(epoch, w.i);
    const holder = facts.holders.get(epoch);
    const kind = holder?.startsWith("runner:") ? "server" : holder?.startsWith("tab:") ? "tab" : undefined;
    if (kind && kind !== home) problems.push(`wake at seq ${w.seq} says home ${home} under epoch ${epoch}, whose lease holder was ${holder}`);
  }
  const epochs = [...firstWakeOf.keys()].sort((a, b) => a - b);
  /** Where the first wake of an epoch later than `e` is (a run of epoch e writes nothing past it but its recovered ending). */
  const nextEpochAt = (e: number) => {
    const later = epochs.find((x) => x > e);
    return later === undefined ? Infinity : (firstWakeOf.get(later) ?? Infinity);
  };

  // Runs: one ending each, nothing after it, the run's grammar; none writing on past the next epoch's first wake.
  const headers = main.filter((r) => isKind(r.step, "shellm-run"));
  const wakeById = new Map(wakes.map((w) => [w.step.step_id, w.step]));
  let interrupted = 0;
  let stopped = 0;
  for (const h of headers) {
    const id = h.step.step_id;
    const own = main.filter((r) => r.step.run_id === id);
    const ends = own.filter((r) => isRunEnd(r.step));
    const describe = (r: LinkRow) => r.step.type + ("reason" in r.step ? `/${String(r.step.reason)}` : "");
    if (ends.length !== 1) problems.push(`run ${short(id)} (seq ${h.seq}) has ${ends.length} endings: ${ends.map(describe).join(", ")}`);
    const end = ends[0];
    if (end && own.at(-1) !== end) problems.push(`run ${short(id)} has steps after its ending (${describe(end)})`);
    const shape = own.map((r) => r.step.type).join(",");
    if (!RUN_SHAPE.test(shape)) problems.push(`run ${short(id)} (seq ${h.seq}) has the shape ${shape}`);
    if (end && isKind(end.step, "error") && end.step.reason === "interrupted") interrupted++;
    if (end && isKind(end.step, "error") && end.step.reason === "stopped") stopped++;
    // The run's epoch: its wake's (an inner-life run names it), else the last wake before it.
    const named = isKind(h.step, "shellm-run") && h.step.wake ? wakeById.get(h.step.wake) : undefined;
    const at = pos.get(id) ?? 0;
    const epoch = named?.epoch ?? wakes.filter((w) => w.i < at).at(-1)?.step.epoch;
    if (epoch === undefined) continue;
    const limit = nextEpochAt(epoch);
    for (const r of own) {
      const p = pos.get(r.step.step_id) ?? 0;
      // The one step a later home writes for an earlier run: its `interrupted` ending, as it recovers.
      const recovered = r === end && isKind(r.step, "error") && r.step.reason === "interrupted";
      if (p > limit && !recovered) problems.push(`run ${short(id)} of epoch ${epoch} wrote ${describe(r)} at seq ${r.seq}, after epoch ${epochs.find((x) => x > epoch)}'s first wake: a write from a stale epoch was accepted`);
    }
  }
  problems.push(...unleasedWakes(all, facts), ...outOfTime(all, facts));
  const headerIds = new Set(headers.map((h) => h.step.step_id));
  // Nothing of a run whose start is not in the mind's line (a run the tab began after it lost the lease, and set aside) is in it.
  const orphans = main.filter((r) => r.step.run_id && !headerIds.has(r.step.run_id));
  if (orphans.length) problems.push(`${orphans.length} steps in the mind's line belong to no run in it (first: seq ${orphans[0]?.seq} ${orphans[0]?.step.type} of run ${short(orphans[0]?.step.run_id ?? "")})`);
  for (const r of main) {
    if (isKind(r.step, "error") && r.step.reason === "interrupted" && (!r.step.run_id || !headerIds.has(r.step.run_id))) problems.push(`an interrupted error at seq ${r.seq} points at no run (${r.step.run_id})`);
  }
  return {
    problems,
    main,
    asideSteps: all.length - main.length,
    wakes: { tab: wakes.filter((w) => w.step.home === "tab").length, server: wakes.filter((w) => w.step.home === "server").length, epochs: epochs.length },
    runs: headers.length,
    interrupted,
    stopped,
  };
}

const where = (r: LinkRow, facts: LifeFacts) => (r.traj === facts.root ? "the mind's line" : facts.aside.has(r.traj) ? "a set-aside trajectory" : `trajectory ${short(r.traj)}`);
const clock = (ts: string) => ts.slice(11, 23);

/**
 * Once any home held the lease (the earliest wake that carries an epoch), a
 * wake without one was written by a home that ran the mind without the lease:
 * a second writer, wherever its steps were stored (set aside included).
 */
function unleasedWakes(all: readonly LinkRow[], facts: LifeFacts): string[] {
  const wakes = all.filter((r) => isKind(r.step, "wake"));
  const leased = wakes.filter((r) => isKind(r.step, "wake") && r.step.epoch !== undefined).sort((a, b) => Date.parse(a.step.ts) - Date.parse(b.step.ts))[0];
  if (!leased || !isKind(leased.step, "wake")) return [];
  const from = Date.parse(leased.step.ts);
  return wakes.flatMap((r) =>
    isKind(r.step, "wake") && r.step.epoch === undefined && Date.parse(r.step.ts) >= from
      ? [`wake at seq ${r.seq} (${r.step.home ?? "no home"}, in ${where(r, facts)}) stamped ${clock(r.step.ts)} carries no epoch, after the first lease (epoch ${leased.step.epoch}'s wake at ${clock(leased.step.ts)}): a home ran the mind without the lease`]
      : [],
  );
}

/** Within a trajectory, stored order is time order: a step stored after one stamped later was written by a second writer, or placed after the new home's. */
function outOfTime(all: readonly LinkRow[], facts: LifeFacts): string[] {
  const out: string[] = [];
  const newest = new Map<string, LinkRow>();
  for (const r of all) {
    const before = newest.get(r.traj);
    if (before && Date.parse(r.step.ts) < Date.parse(before.step.ts)) {
      out.push(`in ${where(r, facts)}, seq ${r.seq} (${r.step.type} stamped ${clock(r.step.ts)}) is stored after seq ${before.seq} (${before.step.type} stamped ${clock(before.step.ts)}): stored order is not time order`);
    } else newest.set(r.traj, r);
  }
  return out;
}

/**
 * The longest stretch of the mind's own line with no step, once it was leased
 * (from its first wake with an epoch): how long the mind was down at worst,
 * whichever home it lived in. Steps are taken in seq order, by their time.
 */
export function longestSilence(main: readonly LinkRow[]): { ms: number; before?: LinkRow; after?: LinkRow } {
  const from = main.findIndex((r) => isKind(r.step, "wake") && r.step.epoch !== undefined);
  let worst: { ms: number; before?: LinkRow; after?: LinkRow } = { ms: 0 };
  for (let i = Math.max(from, 0) + 1; from >= 0 && i < main.length; i++) {
    const [a, b] = [main[i - 1]!, main[i]!];
    const ms = Date.parse(b.step.ts) - Date.parse(a.step.ts);
    if (ms > worst.ms) worst = { ms, before: a, after: b };
  }
  return worst;
}
