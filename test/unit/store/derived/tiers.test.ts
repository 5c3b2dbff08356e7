// lib/store/derived/tiers.ts against IndexedDB (fake-indexeddb): a summary is sealed
// once and never rewritten, rows that are not summaries are skipped, and the
// keys-only index gives the stream's positions of one trajectory.
import { describe, expect, it } from "vitest";
import { AlreadySealedError, InvalidTierError, readTiers, sealTier, streamEntriesAfter, streamKeysAfter, streamStepsBetween, tierStore } from "@/lib/store/derived/tiers";
import { appendStep, tailSteps } from "@/lib/store/steps/steps";
import { buildContext } from "@/lib/context/build";
import { DENSE_TAIL, SealedPast } from "@/lib/context/sealed-past";
import { blockRange, completeBlocks, DEFAULT_TIERS } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { openTestDb } from "../../helpers/db";
import { id, stepMaker } from "../../helpers/steps";

const MIND = id(1, "bbbbbbbbbbbb");
const CHILD = id(2, "bbbbbbbbbbbb");

const tier0 = (index: number, content = `I tidied notes, block ${index}.`) => ({
  tier: 0,
  index,
  content,
  cites: [id(index * 10 + 1)],
  first_step: id(index * 10 + 1),
  last_step: id(index * 10 + 10),
  steps: 10,
});

describe("the tier store", () => {
  it("seals a block once: a second seal is refused and the first summary stays as it was", async () => {
    const db = await openTestDb("tiers-seal");
    await sealTier(db, MIND, MIND, { ...tier0(0), model: "mock/cheap", created: "2026-01-01T00:00:00.000Z" });
    await expect(sealTier(db, MIND, MIND, tier0(0, "A rewrite of history."))).rejects.toBeInstanceOf(AlreadySealedError);
    const store = tierStore(db, MIND);
    expect(await store.seal(tier0(0, "Another rewrite."))).toBe("already-sealed");
    expect(await store.seal(tier0(1))).toBe("sealed");
    expect(await readTiers(db, MIND, MIND)).toEqual({ tiers: [tier0(0), tier0(1)], skipped: 0 });
    const row = await db.tiers.get([MIND, MIND, 0, 0]);
    expect(row).toEqual({ mind_id: MIND, traj_id: MIND, ...tier0(0), model: "mock/cheap", created: "2026-01-01T00:00:00.000Z" });
  });

  it("refuses a row that is not a sealed summary, and skips one found stored", async () => {
    const db = await openTestDb("tiers-invalid");
    await expect(sealTier(db, MIND, MIND, { ...tier0(0), content: "" })).rejects.toBeInstanceOf(InvalidTierError);
    expect(await db.tiers.count()).toBe(0);
    // Written behind the store's back (an older version, a damaged row).
    await db.tiers.add({ mind_id: MIND, traj_id: MIND, tier: 0, index: 3, content: "x", cites: [], first_step: "", last_step: "", steps: 10 });
    await sealTier(db, MIND, MIND, tier0(1));
    await sealTier(db, MIND, CHILD, tier0(0));
    expect(await readTiers(db, MIND, MIND)).toEqual({ tiers: [tier0(1)], skipped: 1 });
  });

  it("reads the stream's keys of one trajectory after a seq, in order, and its steps by seq range", async () => {
    const db = await openTestDb("tiers-keys");
    const step = stepMaker();
    const written = [
      step("trajectory", { name: "m" }),
      step("wake", { reason: "start", level: 0, delay_s: 0 }),
      step("thought", { content: "one" }),
      step("config", { pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12, model: "m", provider: "openai" }),
      step("thought", { content: "two" }),
    ];
    const seqs: number[] = [];
    for (const [i, s] of written.entries()) {
      seqs.push(await appendStep(db, MIND, s));
      // A child's steps interleave; they are not the root's stream.
      if (i === 2) await appendStep(db, MIND, step("thought", { content: "child" }), CHILD);
    }
    const keys = await streamKeysAfter(db, MIND, MIND, 0);
    expect(keys).toEqual(written.map((s, i) => ({ seq: seqs[i], type: s.type, step_id: s.step_id })));
    expect(await streamKeysAfter(db, MIND, MIND, seqs[2] as number)).toEqual(keys.slice(3));
    // Read from the rows instead (what the tier store's keysAfter does): the same entries.
    expect(await streamEntriesAfter(db, MIND, MIND, 0)).toEqual(keys);
    expect(await streamEntriesAfter(db, MIND, MIND, seqs[2] as number)).toEqual(keys.slice(3));
    expect(await tierStore(db, MIND).keysAfter(seqs[1] as number)).toEqual(keys.slice(2));
    // The steps between two seqs, only those in the stream.
    const steps = await streamStepsBetween(db, MIND, MIND, seqs[1] as number, seqs[4] as number);
    expect(steps.map((s) => s.step_id)).toEqual([written[2]?.step_id, written[4]?.step_id]);
  });

  it("a start over the store: the summaries' seqs place the sealed past, only the rows after it are read, and the context is the one a full read gives", async () => {
    const db = await openTestDb("tiers-seeded");
    const step = stepMaker();
    await appendStep(db, MIND, step("trajectory", { name: "m" }));
    const stream: string[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const s = step("thought", { content: `thought ${i}` });
      seqs.push(await appendStep(db, MIND, s));
      stream.push(s.step_id);
    }
    for (const b of completeBlocks(stream.length, DEFAULT_TIERS)) {
      const { from, to } = blockRange(b, DEFAULT_TIERS);
      await sealTier(db, MIND, MIND, { ...b, content: `I lived ${b.tier}:${b.index}.`, cites: [], first_step: stream[from] as string, last_step: stream[to - 1] as string, steps: to - from, first_seq: seqs[from], last_seq: seqs[to - 1] });
    }
    const store = tierStore(db, MIND);
    const tiers = await store.list();
    const seeded = new SealedPast(DEFAULT_TIERS);
    const after = seeded.seed(tiers);
    const keys = await store.keysAfter(after);
    seeded.extend(keys);
    for (const t of tiers) seeded.accept(t);
    const full = new SealedPast(DEFAULT_TIERS);
    full.extend(await store.keysAfter(0));
    for (const t of tiers) full.accept(t);
    expect(seeded.prefixLength).toBe(1200 - Math.ceil(DENSE_TAIL / 10) * 10);
    expect(keys).toHaveLength(1200 - seeded.prefixLength);
    expect([seeded.length, seeded.sealedCount, seeded.lastSeq]).toEqual([1200, 133, seqs[1199]]);
    const tail = await tailSteps(db, MIND, 300);
    const opts = (p: SealedPast) => ({ selfName: "m", budget: 4000, tiers: DEFAULT_TIERS, summary: p.summary, missing: p.missing, counter: new TokenCounter() });
    expect(buildContext(seeded.source(tail), opts(seeded)).messages).toEqual(buildContext(full.source(tail), opts(full)).messages);
  });
});
