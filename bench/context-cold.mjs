// For bench/context: cold assembly from IndexedDB, as a starting mind does it
// (lib/mind/summaries/summarizer.ts loads its SealedPast this way, and the run's first
// context is then built over it): every sealed summary from the tiers table,
// the sealed past placed from their seqs (SealedPast.seed), the stream index
// read only after it, the tail, the staircase. The same code runs under Node
// over fake-indexeddb (bench/context.bench.mjs) and in Chromium over its own
// IndexedDB (bench/context-chromium.mjs bundles it with esbuild): `lib` holds
// the modules of lib/ it needs, handed in by the caller.

/** Store a life's rows as appendStep shapes them (in bulk) and its sealed summaries; seqs are 1, 2, … in a fresh database. */
export async function storeRows(db, rows, chunk = 5000) {
  for (let i = 0; i < rows.length; i += chunk) await db.steps.bulkAdd(rows.slice(i, i + chunk));
}

/** The tier rows of every complete block of a life, with the store's seqs (seq = raw position + 1 in a fresh database). */
export function tierRows(lib, mind, raw, summaries) {
  const stream = [];
  raw.forEach((s, i) => {
    if (lib.inStream(s)) stream.push({ id: s.step_id, seq: i + 1 });
  });
  const F = lib.DEFAULT_TIERS.fanout;
  for (const b of lib.completeBlocks(stream.length, lib.DEFAULT_TIERS)) summaries.seal(b, (a, z) => stream.slice(a, z).map((p) => p.id), F);
  return [...summaries.sealed].map(([k, v]) => {
    const [tier, index] = k.split(":").map(Number);
    const size = F ** (tier + 1);
    const first = stream[index * size];
    const last = stream[(index + 1) * size - 1];
    return { mind_id: mind, traj_id: mind, tier, index, content: v.content, cites: v.cites, first_step: first.id, last_step: last.id, steps: size, first_seq: first.seq, last_seq: last.seq, model: "stand-in" };
  });
}

/** One cold assembly: what a mind does before its first call after it starts. */
export async function coldAssembly(lib, db, mind, { budget, idleBudget, contextSteps, selfName }) {
  const t0 = performance.now();
  const { tiers } = await lib.readTiers(db, mind, mind);
  const t1 = performance.now();
  const past = new lib.SealedPast(lib.DEFAULT_TIERS);
  const after = past.seed(tiers);
  // What the mind's tier store reads (tierStore.keysAfter): the rows after the sealed past.
  const keys = await lib.keysAfter(db, mind, mind, after);
  past.extend(keys);
  for (const t of tiers) past.accept(t);
  past.loaded = true;
  const t2 = performance.now();
  const tail = await lib.tailSteps(db, mind, contextSteps);
  const t3 = performance.now();
  const counter = new lib.TokenCounter();
  const opts = { selfName, budget, tiers: lib.DEFAULT_TIERS, summary: past.summary, missing: past.missing, counter };
  const ctx = lib.buildContext(past.source(tail), opts);
  const t4 = performance.now();
  const idle = lib.buildContext(past.source(tail), { ...opts, budget: idleBudget });
  return {
    tiers_ms: t1 - t0,
    keys_ms: t2 - t1,
    tail_ms: t3 - t2,
    build_ms: t4 - t3,
    total_ms: t4 - t0,
    keys_read: keys.length,
    prefix: past.prefixLength,
    stream: past.length,
    sealed: past.sealedCount,
    tokens: ctx.tokens,
    tier_parts: ctx.parts.filter((p) => p.kind === "tier").length,
    elided_parts: ctx.parts.filter((p) => p.kind === "elided").length,
    idle_tokens: idle.tokens,
  };
}

/** The stream's whole index read key by key (what a start did before the tier rows kept their seqs). */
export async function wholeIndex(lib, db, mind) {
  const t0 = performance.now();
  const keys = await lib.indexKeysAfter(db, mind, mind, 0);
  return { ms: performance.now() - t0, keys: keys.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `runs` cold assemblies after one warm-up; the median of each figure. */
export async function coldRuns(lib, db, mind, opts, runs) {
  const all = [];
  for (let i = 0; i <= runs; i++) {
    const r = await coldAssembly(lib, db, mind, opts);
    if (i > 0) all.push(r);
  }
  const out = { runs: all.length };
  for (const k of Object.keys(all[0])) out[k] = median(all.map((r) => r[k]));
  return out;
}
