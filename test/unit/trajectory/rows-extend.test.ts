// lib/trajectory/rows.ts, extendRows: the rows of a growing trajectory, taken
// in as it grows, must always be the rows buildRows makes of the whole, for any
// stream (runs, interleaved runs, idle stretches, steps without a header, a
// header after its steps) and any options (collapsed runs, open folds, type
// filters, fold sizes), whatever the sizes of the appended batches.
import { describe, expect, it } from "vitest";
import { buildRows, extendRows, type IndexEntry, type RowBuild, type RowOptions } from "@/lib/trajectory/rows";
import { mulberry32 } from "../helpers/random";

/** The seeded generator, with the picks these tests make. */
function random(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof random>;

const IN_RUN = ["prompt", "reasoning", "shell-output", "thought", "final", "error", "feedback", "observation"];
const LOOSE = ["message", "thought", "config", "fork", "observation"];
const IDLE = ["idle", "wake", "monolith-wake"];

function entry(seq: number, type: string, run?: string): IndexEntry {
  return { seq, id: `s${seq}`, type, ts: `2025-01-01T00:00:${String(seq % 60).padStart(2, "0")}.000Z`, run, preview: `${type} ${seq}` };
}

/**
 * A stream as a live mind (or several thinkers) writes it: runs opened and
 * steps added to any open one (so runs interleave), idle stretches, loose
 * steps, steps naming a run whose header never comes, and now and then steps
 * whose header comes after them.
 */
function stream(r: Random, length: number): IndexEntry[] {
  const out: IndexEntry[] = [];
  const open: string[] = [];
  const late: string[] = []; // runs with steps already written, header still to come
  for (let seq = 1; out.length < length; seq++) {
    const roll = r.next();
    if (roll < 0.08 || open.length === 0) {
      const e = entry(seq, "shellm-run");
      out.push(e);
      open.push(e.id);
      if (open.length > 3) open.shift();
    } else if (roll < 0.55) out.push(entry(seq, r.pick(IN_RUN), r.pick(open)));
    else if (roll < 0.75) {
      // An idle stretch, at times long enough to fold.
      const n = 1 + r.int(6);
      for (let i = 0; i < n; i++) out.push(entry(seq++, r.pick(IDLE)));
      seq--;
    } else if (roll < 0.88) out.push(entry(seq, r.pick(LOOSE)));
    else if (roll < 0.93) out.push(entry(seq, r.pick(IN_RUN), `gone-${r.int(3)}`));
    else if (roll < 0.97) {
      const id = `s${seq + 1000000}`;
      late.push(id);
      out.push(entry(seq, r.pick(IN_RUN), id));
    } else if (late.length) {
      // The header of steps already written (its seq is in order; its id was named before).
      const id = late.shift() as string;
      out.push({ ...entry(seq, "shellm-run"), id });
    }
  }
  return out;
}

const TYPES = ["shellm-run", ...IN_RUN, ...LOOSE, ...IDLE];

function options(r: Random, all: readonly IndexEntry[]): RowOptions {
  const some = (ids: string[], p: number) => new Set(ids.filter(() => r.chance(p)));
  const runs = all.filter((e) => e.type === "shellm-run").map((e) => e.id);
  const idles = all.filter((e) => IDLE.includes(e.type)).map((e) => e.id);
  return {
    collapsedRuns: r.chance(0.5) ? new Set() : some(runs, r.next()),
    openFolds: r.chance(0.5) ? new Set() : some(idles, 0.5),
    types: r.chance(0.5) ? null : some(TYPES, r.next()),
    foldFrom: r.chance(0.3) ? undefined : 1 + r.int(5),
  };
}

// Many random cases each: on a busy machine they take seconds, not the default five at most.
const SLOW = 60_000;

describe("extendRows", () => {
  it("always equals buildRows of the whole, for random streams, options and batch sizes", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = random(seed);
      const all = stream(r, 20 + r.int(250));
      const opts = options(r, all);
      let build: RowBuild | null = null;
      for (let n = 0; n < all.length; ) {
        n = Math.min(all.length, n + 1 + (r.chance(0.3) ? r.int(40) : r.int(4)));
        const entries = all.slice(0, n);
        build = extendRows(build, entries, opts);
        expect(build.rows, `seed ${seed}, ${n} entries`).toStrictEqual(buildRows(entries, opts));
      }
    }
  }, SLOW);

  it("equals buildRows when the options change between batches and when older entries are put before", () => {
    for (let seed = 1; seed <= 100; seed++) {
      const r = random(seed * 7919);
      const all = stream(r, 50 + r.int(200));
      let opts = options(r, all);
      let build: RowBuild | null = null;
      // The viewer loads the newest steps first, then every older one before them, then new ones as they come.
      const startAt = r.int(all.length);
      let from = startAt;
      let to = Math.min(all.length, startAt + 10);
      while (from > 0 || to < all.length) {
        if (from > 0 && r.chance(0.2)) from = 0;
        else to = Math.min(all.length, to + 1 + r.int(8));
        if (r.chance(0.1)) opts = options(r, all);
        const entries = all.slice(from, to);
        build = extendRows(build, entries, opts);
        expect(build.rows, `seed ${seed}, entries ${from}..${to}`).toStrictEqual(buildRows(entries, opts));
      }
    }
  }, SLOW);

  it("gives the same rows when one build is extended twice by the same entries (React may run a memo twice)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const r = random(seed * 104729);
      const all = stream(r, 100 + r.int(100));
      const opts = options(r, all);
      let build: RowBuild | null = null;
      for (let n = 0; n < all.length; ) {
        n = Math.min(all.length, n + 1 + r.int(10));
        const entries = all.slice(0, n);
        const once = extendRows(build, entries, opts);
        const twice = extendRows(build, entries, opts);
        expect(twice.rows, `seed ${seed}, ${n} entries`).toStrictEqual(once.rows);
        build = twice;
        expect(build.rows).toStrictEqual(buildRows(entries, opts));
      }
    }
  }, SLOW);

  it("keeps the rows before the growing run as they were, object for object, and returns the same build when nothing was added", () => {
    const opts: RowOptions = { collapsedRuns: new Set(), openFolds: new Set(), types: null };
    const all: IndexEntry[] = [entry(1, "message")];
    for (let run = 0, seq = 2; run < 5; run++) {
      const header = entry(seq++, "shellm-run");
      all.push(header);
      for (let i = 0; i < 10; i++) all.push(entry(seq++, i % 2 ? "shell-output" : "reasoning", header.id));
    }
    const before = extendRows(null, all.slice(0, 40), opts);
    expect(extendRows(before, all.slice(0, 40), opts)).toBe(before);
    const after = extendRows(before, all.slice(0, 45), opts);
    expect(after.rows).toStrictEqual(buildRows(all.slice(0, 45), opts));
    // Entries 1..34 are the message and three whole runs: rows 0..33, untouched. Row 34 is the fourth run's header, renewed (its count grew).
    for (let i = 0; i < 34; i++) expect(after.rows[i], `row ${i}`).toBe(before.rows[i]);
    expect(after.rows[34]).not.toBe(before.rows[34]);
    expect(after.rows[34]?.kind === "step" && after.rows[34].run?.count).toBe(10);
  });
});
