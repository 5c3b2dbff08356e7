// The importer against generated hostile files (test/unit/helpers/hostile-cases.ts):
// random bytes; truncated gzip and zip; lines over the limit and deeply nested
// JSON; decompression bombs (made small by small limits); names that climb
// out of the archive or are absolute; duplicate entries; wrong CRCs; and
// valid lines among them all. Each file is imported into a counting sink and
// must either succeed with every planted line kept (and the lines over the
// limit counted exactly) or fail with an ArchiveError, worded for a person;
// never another error, never a hang (10 s each, the issue's bound), and no
// import adds more than 256 MiB to the process.
//
//   IMPORT_FUZZ_COUNT=1000 (default) IMPORT_FUZZ_SEED=2104 (the first case's seed)
import { describe, expect, it } from "vitest";
import { ArchiveError } from "@/lib/archive";
import { importArchive, type ImportedTrajectory, type ImportSink, type StepBatchItem } from "@/lib/import/importer";
import { overLongReason } from "@/lib/import/lines";
import { hostileCase, type HostileCase } from "../helpers/hostile-cases";

const COUNT = Number(process.env.IMPORT_FUZZ_COUNT ?? 1000);
const FIRST_SEED = Number(process.env.IMPORT_FUZZ_SEED ?? 2104);
const HANG_MS = 10_000;
const MEMORY_BOUND = 256 * 1024 * 1024;

/** Counts what it is given, and walks mind.json as the page's sink does (it strips keys with JSON.stringify). */
class CountingSink implements ImportSink {
  readonly kept = new Set<string>();
  blobBytes = 0;
  async trajectory(_t: ImportedTrajectory): Promise<void> {}
  async steps(_trajId: string, batch: StepBatchItem[]): Promise<void> {
    for (const item of batch) this.kept.add(item.step.step_id);
  }
  async blob(_path: string, text: string): Promise<void> {
    this.blobBytes += text.length;
  }
  async mind(json: unknown): Promise<void> {
    JSON.stringify(json);
  }
}

/** What went wrong with one case, or null. */
async function verdict(c: HostileCase): Promise<string | null> {
  const sink = new CountingSink();
  try {
    const stats = await importArchive(c.blob, sink, { name: c.name, limits: c.limits, signal: AbortSignal.timeout(HANG_MS) });
    if (c.outcome === "refused") return `was read (${stats.steps} steps), not refused`;
    const lost = c.planted.filter((id) => !sink.kept.has(id));
    if (lost.length) return `lost ${lost.length} of ${c.planted.length} planted lines, first ${lost[0]}`;
    const overLong = stats.skippedReasons[overLongReason(c.limits.maxLineBytes)] ?? 0;
    if (c.overLong !== undefined && overLong !== c.overLong) return `counted ${overLong} lines over the limit, not ${c.overLong}`;
    return null;
  } catch (e) {
    if (!(e instanceof ArchiveError)) return `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
    if (c.outcome === "kept") return `refused: ${e.message}`;
    if (!/^(This|The) /.test(e.message) || !e.message.endsWith(".")) return `an unclear message: ${e.message}`;
    if (c.refusal && !c.refusal.test(e.message)) return `refused with "${e.message}", expected ${c.refusal}`;
    return null;
  }
}

describe("importArchive on hostile files", () => {
  it(`${COUNT} generated cases from seed ${FIRST_SEED}: kept or refused clearly, none hangs, memory bounded`, { timeout: 300_000 }, async () => {
    const rss = () => process.memoryUsage().rss;
    const start = rss();
    // What each import adds to the process, sampled while it runs: the cases themselves are made before it starts.
    let peak = start;
    let most = { bytes: 0, seed: 0 };
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    const failures: string[] = [];
    const tally = new Map<string, number>();
    let slowest = { ms: 0, seed: 0, kind: "" };
    let making = 0;
    const t0 = performance.now();
    try {
      for (let seed = FIRST_SEED; seed < FIRST_SEED + COUNT; seed++) {
        const m = performance.now();
        const c = await hostileCase(seed);
        making += performance.now() - m;
        const before = rss();
        peak = before;
        const t = performance.now();
        const problem = await verdict(c);
        const ms = performance.now() - t;
        peak = Math.max(peak, rss());
        if (peak - before > most.bytes) most = { bytes: peak - before, seed };
        if (ms > slowest.ms) slowest = { ms, seed, kind: c.kind };
        if (problem) failures.push(`seed ${seed} (${c.kind}, ${c.name}, ${c.blob.size} bytes): ${problem}`);
        tally.set(c.kind, (tally.get(c.kind) ?? 0) + 1);
      }
    } finally {
      clearInterval(sampler);
    }
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    console.log(
      `import fuzz: ${COUNT} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(making / 1000).toFixed(1)} s of it making them); ` +
        `slowest import ${slowest.ms.toFixed(0)} ms (seed ${slowest.seed}, ${slowest.kind}); ` +
        `RSS ${mib(start)} at the start, ${mib(rss())} at the end; one import added at most ${mib(most.bytes)} (seed ${most.seed}); ` +
        [...tally].map(([kind, n]) => `${kind} ${n}`).join(", "),
    );
    expect(failures).toEqual([]);
    expect(most.bytes, `seed ${most.seed} added ${mib(most.bytes)}`).toBeLessThan(MEMORY_BOUND);
  });
});
