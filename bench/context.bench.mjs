#!/usr/bin/env node
// Benchmark: assembling a wake's context (lib/context: the staircase of sealed
// summaries plus the verbatim tail) on generated 1k, 10k and 100k-step lives.
// Measures cold assembly (a fresh TokenCounter), incremental assembly (one
// more step, one counter kept), the tokens of an idle wake's first call at
// steady state — its lean first look, made by the same function the inner
// life hands its run (lib/mind/thinkers/first-look.ts) — against a
// Headlong-style renderer of the same log and against the whole first call of
// Headlong's monolith (a lower bound), and cold assembly
// from IndexedDB as a starting mind does it (bench/context-cold.mjs: the
// sealed summaries from the tiers table, the sealed past placed from their
// seqs, the index read only after it, the tail, the staircase), under Node
// over fake-indexeddb and in Chromium (bench/context-chromium.mjs; CHROMIUM=0
// skips it; run it under `flock /tmp/reverie-e2e.lock`). With HEADLONG_DIR pointing
// at a Headlong checkout, times Headlong's own per-wake path on the same files;
// without it, prints the issue's reference figures. Writes
// bench/results/context.json.
//
//   npm run bench -- context          (SIZES=1000,10000,100000 APPENDS=200 COLD_RUNS=7 COLD_IDB_RUNS=5)
//   HEADLONG_DIR=/path/to/headlong npm run bench -- context      (HEADLONG_RUNS=5 calls of each tool)
//   CONTEXT_DIR=bench/some-copy/context npm run bench -- context  (a patched copy; writes context-patched.json)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import "fake-indexeddb/auto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";
import { headlongAvailable, headlongLines, headlongMessages, MONOLITH_FIXED, monolithFirstCall, recentStream, runHeadlong, tokensOf } from "./context-headlong.mjs";
import { chromiumAvailable, chromiumCold, CHROMIUM } from "./context-chromium.mjs";
import { coldRuns, storeRows, tierRows, wholeIndex } from "./context-cold.mjs";
import { makeLife, makeSummaries, newId, SELF } from "./context-life.mjs";

// CONTEXT_DIR: measure a patched copy of lib/context instead (a folder under bench/, so its imports resolve).
const CONTEXT_DIR = process.env.CONTEXT_DIR ? new URL(`${process.env.CONTEXT_DIR.replace(/\/$/, "")}/`, `file://${process.cwd()}/`) : new URL("../lib/context/", import.meta.url);
const { arraySource, BuildCache, buildContext, DEFAULT_BUDGET, IDLE_BUDGET, inStream } = await tsImport(new URL("build.ts", CONTEXT_DIR).href, import.meta.url);
// What a mind keeps from one build to the next, as its inner life holds it (a copy from before BuildCache kept it in module state: nothing to hand in).
const newCache = () => (BuildCache ? { cache: new BuildCache() } : {});
const { completeBlocks, DEFAULT_TIERS, plan, alignCut } = await tsImport(new URL("staircase.ts", CONTEXT_DIR).href, import.meta.url);
const { TokenCounter, MESSAGE_OVERHEAD } = await tsImport(new URL("tokens.ts", CONTEXT_DIR).href, import.meta.url);
const { instructionsFor, taskText } = await tsImport("../lib/mind/run/prompt.ts", import.meta.url);
// What the inner life gives an idle wake's first call (lib/mind/thinkers/inner-life.ts hands it to its run): measured as the mind sends it.
const { idleFirstLook } = await tsImport("../lib/mind/thinkers/first-look.ts", import.meta.url);
const { commandList } = await tsImport("../lib/shell/commands/registry.ts", import.meta.url);
const { ReverieDb } = await tsImport("../lib/store/db/db.ts", import.meta.url);
const { countSteps, tailSteps } = await tsImport("../lib/store/steps/steps.ts", import.meta.url);
const { readTiers, streamEntriesAfter, streamKeysAfter } = await tsImport("../lib/store/derived/tiers.ts", import.meta.url);
const { SealedPast } = await tsImport(new URL("sealed-past.ts", CONTEXT_DIR).href, import.meta.url);
const { DEFAULT_RUN_LIMITS } = await tsImport("../lib/mind/run/run.ts", import.meta.url);

const SIZES = (process.env.SIZES ?? "1000,10000,100000").split(",").map(Number);
const APPENDS = Number(process.env.APPENDS ?? 200);
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 7);
const HEADLONG_RUNS = Number(process.env.HEADLONG_RUNS ?? 5);
const HEADLONG_DIR = process.env.HEADLONG_DIR;
const TARGETS = { incremental_ms_at_100k: 5, cold_idb_ms_at_100k: 300, idle_tokens_ratio: 0.1 };
// The issue's figures for Headlong on this kind of machine (not measured here unless HEADLONG_DIR is set).
const REFERENCE = {
  context_ms: { low: 90, high: 105 },
  recap_ms: { 10000: 500, 100000: 2500 },
  scans_ms: { 100000: 1200 },
};
const F = DEFAULT_TIERS.fanout;
const PERSONA = "I am Wren, a small, curious mind. I keep a garden log, write a haiku most days, and build little tools (a tide-table parser, a link checker) for the people who talk to me.";
const log = (...a) => console.log(...a);

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => Math.round(s[Math.min(s.length - 1, Math.floor(s.length * q))] * 1000) / 1000;
  return { median: at(0.5), p90: at(0.9), min: at(0), max: at(1), runs: s.length };
}

/** A counter that also times the tokenizer, to say what the time goes to. */
class TimedCounter extends TokenCounter {
  ms = 0;
  calls = 0;
  count(text) {
    const t = performance.now();
    const n = super.count(text);
    this.ms += performance.now() - t;
    this.calls++;
    return n;
  }
}

/** arraySource, with the time spent copying ids counted. */
function timedSource(steps, probe) {
  const src = arraySource(steps);
  return {
    length: src.length,
    at: src.at,
    ids: (from, to) => {
      const t = performance.now();
      const out = src.ids(from, to);
      probe.idsMs += performance.now() - t;
      probe.idsCalls++;
      probe.ids += out.length;
      return out;
    },
  };
}

const options = (counter, summaries, extra = {}) => ({ selfName: SELF, budget: DEFAULT_BUDGET, tiers: DEFAULT_TIERS, summary: summaries.get, counter, ...extra });

/** Seal every complete block of a stream of n steps not sealed yet. */
function sealAll(summaries, stream) {
  const ids = (a, b) => stream.slice(a, b).map((s) => s.step_id);
  for (const b of completeBlocks(stream.length, DEFAULT_TIERS)) summaries.seal(b, ids, F);
}

/** After one more step: seal the blocks it completes (one per tier whose size divides n). */
function sealNew(summaries, stream) {
  const n = stream.length;
  const ids = (a, b) => stream.slice(a, b).map((s) => s.step_id);
  for (let tier = 0, size = F; n % size === 0; tier++, size *= F) summaries.seal({ tier, index: n / size - 1 }, ids, F);
}

/** The steps an idle wake writes before its first model call: the wake, the run's header, its prompt. */
function idleWake(last, level) {
  const ts = new Date(Date.parse(last.ts) + 300_000).toISOString();
  const wake = { type: "wake", step_id: newId(1), ts, reason: "scheduled", level, delay_s: 300, source: "monolith" };
  const runId = newId(2);
  const run = { type: "shellm-run", step_id: runId, ts, model: "anthropic/claude-sonnet-4-5", trigger_step: wake.step_id, wake: wake.step_id, launched_by: "monolith" };
  const prompt = { type: "prompt", step_id: newId(3), ts, content: taskText({ reason: "scheduled", level }), run_id: runId, trigger_step: wake.step_id };
  return [wake, run, prompt];
}

const maxSize = Math.max(...SIZES);
log(`generating a life of ${(maxSize + 4 * APPENDS).toLocaleString()} steps (seeded; the smaller sizes are its first N steps)…`);
const whole = makeLife({ steps: maxSize + 4 * APPENDS, taskText });
const instructions = instructionsFor({ name: SELF, persona: PERSONA }, { commands: commandList(), skills: [] });
const instructionTokens = new TokenCounter().count(instructions);
const look = idleFirstLook(instructions);
if (!look) throw new Error("the standing instructions have no first look: lib/mind/run/prompt.ts firstLookParts could not split them");
const lookInstructionTokens = new TokenCounter().count(look.instructions);
const IDENTITY = { name: SELF, persona: PERSONA };
const LEAN_RUNS = Number(process.env.LEAN_RUNS ?? 5);
log("summaries are generated text, not model output: one first-person line per complete block stands in for the summarizer.\n");

const results = [];
/** Per size: the life ending in an idle wake, and its trajectory id (for Headlong's files). */
const idleLives = new Map();
for (const N of SIZES) {
  const raw = whole.steps.slice(0, N);
  const tFilter = performance.now();
  const stream = raw.filter(inStream);
  const filterMs = performance.now() - tFilter;
  const summaries = makeSummaries();
  sealAll(summaries, stream);
  log(`${N.toLocaleString()} steps: ${stream.length.toLocaleString()} in the stream, ${summaries.sealed.size.toLocaleString()} sealed summaries`);

  // Cold: a fresh counter each time, so every token of the context is counted.
  const coldMs = [];
  let cold;
  for (let i = 0; i < COLD_RUNS + 1; i++) {
    const counter = new TokenCounter();
    const t = performance.now();
    cold = buildContext(arraySource(stream), options(counter, summaries));
    if (i > 0) coldMs.push(performance.now() - t);
  }

  // Incremental: one counter and one cache kept, as a mind keeps them; one more step, its blocks sealed, the context again.
  const counter = new TokenCounter();
  const kept = newCache();
  const live = stream.slice();
  const liveSums = makeSummaries();
  sealAll(liveSums, live);
  buildContext(arraySource(live), options(counter, liveSums, kept));
  const incMs = [];
  let cursor = N;
  while (incMs.length < APPENDS && cursor < whole.steps.length) {
    const step = whole.steps[cursor++];
    if (!inStream(step)) continue;
    const t = performance.now();
    live.push(step);
    sealNew(liveSums, live);
    buildContext(arraySource(live), options(counter, liveSums, kept));
    incMs.push(performance.now() - t);
  }

  // Where a warm (incremental) call's time goes: the mean of PROBES calls, ids() and the tokenizer timed.
  const PROBES = 20;
  const probe = { idsMs: 0, idsCalls: 0, ids: 0 };
  const timed = new TimedCounter();
  buildContext(arraySource(live), options(timed, liveSums, kept));
  timed.ms = 0;
  timed.calls = 0;
  let warm;
  const tb = performance.now();
  for (let i = 0; i < PROBES; i++) warm = buildContext(timedSource(live, probe), options(timed, liveSums, kept));
  const warmMs = (performance.now() - tb) / PROBES;
  const cut = alignCut(live.length - 20, DEFAULT_TIERS);
  const tp = performance.now();
  for (let i = 0; i < PROBES; i++) plan(live.length, cut, DEFAULT_TIERS, (b) => (liveSums.get(b) ? "sealed" : { missing: "x" }));
  const planMs = (performance.now() - tp) / PROBES;
  const per = (v) => Math.round((v / PROBES) * 1000) / 1000;
  const breakdown = {
    build_ms: Math.round(warmMs * 1000) / 1000,
    ids_ms: per(probe.idsMs),
    ids_calls: probe.idsCalls / PROBES,
    ids_copied: probe.ids / PROBES,
    tokenizer_ms: per(timed.ms),
    tokenizer_calls: timed.calls / PROBES,
    plan_ms_each: Math.round(planMs * 1000) / 1000,
    parts: warm.parts.length,
    verbatim_steps: warm.parts.filter((p) => p.kind === "verbatim").reduce((n, p) => n + p.step_ids.length, 0),
  };

  // An idle wake at steady state: the life, then the wake's own first steps.
  const lastWake = [...raw].reverse().find((s) => s.type === "wake" && s.source === "monolith");
  const wakeSteps = idleWake(raw[raw.length - 1], lastWake?.level ?? 0);
  const idleRaw = [...raw, ...wakeSteps];
  const idleStream = [...stream, ...wakeSteps.filter(inStream)];
  const prompt = wakeSteps[2];
  const idleCounter = new TokenCounter();
  // An idle (scheduled) wake's first call: its lean look (lib/mind/thinkers/first-look.ts), as run.ts builds it for iteration 1.
  const leanOpts = options(idleCounter, summaries, { pinned: prompt, budget: look.budget, ...newCache() });
  const idle = look.build(arraySource(idleStream), leanOpts);
  const leanMs = [];
  for (let i = 0; i < LEAN_RUNS; i++) {
    const t = performance.now();
    look.build(arraySource(idleStream), leanOpts);
    leanMs.push(performance.now() - t);
  }
  // Before the lean look: the full instructions and the plain staircase at IDLE_BUDGET.
  const before = buildContext(arraySource(idleStream), options(idleCounter, summaries, { pinned: prompt, budget: IDLE_BUDGET }));
  const lean = buildContext(arraySource(idleStream), options(idleCounter, summaries, { pinned: prompt, maxVerbatim: 20 }));
  // What run.ts does today: the last 300 raw steps, no summaries (the past elided).
  const tail = idleRaw.slice(-DEFAULT_RUN_LIMITS.contextSteps);
  const today = buildContext(arraySource(tail.filter(inStream)), options(idleCounter, { get: () => undefined }, { pinned: prompt, before: idleRaw.length - tail.length }));
  const trajId = newId(99);
  const hlLines = headlongLines(trajId, idleRaw);
  const hlMessages = headlongMessages(hlLines, new Map([...whole.blobs].map(([k, v]) => [`blobs/${k}`, v])));
  const hlTokens = tokensOf(hlMessages, idleCounter, MESSAGE_OVERHEAD);
  const recent = recentStream(hlLines);
  // Headlong's monolith on the same wake: its route prompt in each wake's prompt step (the life section: the same summaries, the whole staircase as recap's covers the whole life), plus its fixed texts.
  const lifeText = cold.parts.filter((p) => p.kind === "tier").map((p) => `[tier ${p.tier + 1}] ${summaries.get(p)?.content ?? ""}`).join("\n");
  const monolith = monolithFirstCall(hlLines, new Map([...whole.blobs].map(([k, v]) => [`blobs/${k}`, v])), prompt.step_id, lifeText, idleCounter, MESSAGE_OVERHEAD, IDENTITY);
  const sum = (kinds) => idle.parts.filter((p) => kinds.includes(p.kind)).reduce((n, p) => n + p.tokens, 0);

  results.push({
    steps: N,
    stream: stream.length,
    sealed: summaries.sealed.size,
    filter_ms: Math.round(filterMs * 10) / 10,
    cold_ms: stats(coldMs),
    cold_tokens: cold.tokens,
    incremental_ms: stats(incMs),
    breakdown,
    idle: {
      tokens: idle.tokens,
      parts: idle.parts.length,
      tiers: idle.parts.filter((p) => p.kind === "tier").length,
      elisions: idle.parts.filter((p) => p.kind === "elided").length,
      verbatim_steps: idle.parts.filter((p) => p.kind === "verbatim").reduce((n, p) => n + p.step_ids.length, 0),
      // The breakdown: the life (summaries and the elisions that name what they leave out), the tail (verbatim and the pinned task), the framing.
      life_tokens: sum(["tier", "elided"]),
      tail_tokens: sum(["verbatim", "pinned"]),
      framing_tokens: idle.tokens - sum(["tier", "elided", "verbatim", "pinned"]),
      staircase_tokens: cold.parts.filter((p) => p.kind === "tier").reduce((n, p) => n + p.tokens, 0),
      staircase_tiers: cold.parts.filter((p) => p.kind === "tier").length,
      build_ms: stats(leanMs),
      before_tokens: before.tokens,
      lean_tokens: lean.tokens,
      today_tokens: today.tokens,
      instruction_tokens: lookInstructionTokens,
      full_instruction_tokens: instructionTokens,
    },
    headlong_style: { tokens: hlTokens, messages: hlMessages.length, recent_stream_tokens: idleCounter.count(recent) },
    // Like with like: our first call's instructions (their system message included) and context, against the monolith's whole first call.
    first_call: {
      ours: idle.tokens + lookInstructionTokens + MESSAGE_OVERHEAD,
      ours_before: before.tokens + instructionTokens + MESSAGE_OVERHEAD,
      monolith: monolith.tokens,
      monolith_rendered: monolith.rendered,
      monolith_fixed: monolith.fixed,
      monolith_route_prompts: monolith.route_prompts,
    },
  });
  idleLives.set(N, { steps: idleRaw, trajId, routeLines: monolith.lines });
}

// IndexedDB, the past elided (before a mind's sealed past is read) and the whole stream read row by row: fake-indexeddb under Node.
const idbSize = maxSize;
let idb;
{
  log(`\nIndexedDB (fake-indexeddb under Node, standing in for Chromium's): ${idbSize.toLocaleString()} step rows…`);
  const db = new ReverieDb(`bench-context-${process.pid}`);
  await db.open();
  const mind = newId(5);
  const raw = whole.steps.slice(0, idbSize);
  const tIns = performance.now();
  // The row shape appendStep writes; in bulk (appendStep one by one would take minutes here).
  for (let i = 0; i < raw.length; i += 5000) await db.steps.bulkAdd(raw.slice(i, i + 5000).map((s) => ({ step_id: s.step_id, mind_id: mind, traj_id: mind, type: s.type, json: JSON.stringify(s) })));
  const insertMs = performance.now() - tIns;
  const runs = [];
  for (let i = 0; i < 6; i++) {
    const counter = new TokenCounter();
    const t0 = performance.now();
    const tail = await tailSteps(db, mind, DEFAULT_RUN_LIMITS.contextSteps);
    const t1 = performance.now();
    const total = await countSteps(db, mind);
    const t2 = performance.now();
    const ctx = buildContext(arraySource(tail.filter(inStream)), options(counter, { get: () => undefined }, { before: total - tail.length }));
    const t3 = performance.now();
    if (i > 0) runs.push({ tail: t1 - t0, count: t2 - t1, build: t3 - t2, all: t3 - t0, tokens: ctx.tokens });
  }
  // The whole stream, as a staircase over every step needs it (its parts cite every id): all rows read.
  const t0 = performance.now();
  const rows = await db.steps.where("[mind_id+seq]").between([mind, 0], [mind, Infinity]).toArray();
  const t1 = performance.now();
  const steps = rows.map((r) => JSON.parse(r.json)).filter(inStream);
  const t2 = performance.now();
  const sums = makeSummaries();
  sealAll(sums, steps);
  const t3 = performance.now();
  buildContext(arraySource(steps), options(new TokenCounter(), sums));
  const t4 = performance.now();
  const med = (k) => stats(runs.map((r) => r[k])).median;
  idb = {
    steps: idbSize,
    insert_ms: Math.round(insertMs),
    live_path: { tail_ms: med("tail"), count_ms: med("count"), build_ms: med("build"), total_ms: med("all"), tokens: runs[0].tokens, runs: runs.length },
    whole_stream: { read_ms: Math.round(t1 - t0), parse_filter_ms: Math.round(t2 - t1), build_ms: Math.round(t4 - t3), total_ms: Math.round(t4 - t3 + t2 - t0), stream: steps.length },
    note: "fake-indexeddb under Node stands in for Chromium's IndexedDB; the live-path figure is the tail read + count + assembly with the past elided (run.ts before its sealed past is read)",
  };

  db.close();
}

// Cold assembly with sealed summaries, as a mind starts (bench/context-cold.mjs): the tiers table,
// the sealed past placed from the summaries' seqs, the index read only after it, the tail, the
// staircase. Summaries are the stand-in text, stored as the summarizer stores them (one row per
// block, with its seqs). Under Node over fake-indexeddb, then in Chromium over its own IndexedDB.
const coldLib = { readTiers, keysAfter: streamEntriesAfter, indexKeysAfter: streamKeysAfter, tailSteps, buildContext, inStream, SealedPast, completeBlocks, DEFAULT_TIERS, TokenCounter };
const coldOpts = { budget: DEFAULT_BUDGET, idleBudget: IDLE_BUDGET, contextSteps: DEFAULT_RUN_LIMITS.contextSteps, selfName: SELF };
const COLD_IDB_RUNS = Number(process.env.COLD_IDB_RUNS ?? 5);
// fake-indexeddb walks a key cursor slowly (57.6 s for 10k steps' index before this change): the whole-index read is timed at 1k only under Node.
const WHOLE_INDEX_NODE_UP_TO = Number(process.env.WHOLE_INDEX_NODE_UP_TO ?? 1000);
const coldLives = new Map();
const coldLife = (N) => {
  if (!coldLives.has(N)) {
    const mind = newId(500 + N);
    const raw = whole.steps.slice(0, N);
    const rows = raw.map((st) => ({ step_id: st.step_id, mind_id: mind, traj_id: mind, type: st.type, json: JSON.stringify(st) }));
    coldLives.set(N, { mind, rows, tiers: tierRows(coldLib, mind, raw, makeSummaries()) });
  }
  return coldLives.get(N);
};
const coldNode = {};
log("\nCold assembly with sealed summaries, fake-indexeddb under Node:");
for (const N of SIZES) {
  const { mind, rows, tiers } = coldLife(N);
  const db = new ReverieDb(`bench-context-cold-${N}-${process.pid}`);
  await db.open();
  await storeRows(db, rows);
  await db.tiers.bulkAdd(tiers);
  const cold = await coldRuns(coldLib, db, mind, coldOpts, COLD_IDB_RUNS);
  const wholeIdx = N <= WHOLE_INDEX_NODE_UP_TO ? await wholeIndex(coldLib, db, mind) : null;
  coldNode[N] = { ...cold, whole_index: wholeIdx };
  log(`  ${N.toLocaleString()} steps: ${cold.total_ms.toFixed(1)} ms (${cold.keys_read} index entries read after a sealed prefix of ${cold.prefix.toLocaleString()} positions)`);
  await db.delete();
}
let coldChromium = null;
if (process.env.CHROMIUM !== "0" && chromiumAvailable()) {
  log(`\nCold assembly with sealed summaries, Chromium (${CHROMIUM}):`);
  try {
    coldChromium = await chromiumCold({ sizes: SIZES, lives: coldLife, opts: coldOpts, runs: COLD_IDB_RUNS, log });
  } catch (e) {
    log(`  Chromium run failed: ${e instanceof Error ? e.message : String(e)}`);
  }
} else log(`\nChromium not run (${process.env.CHROMIUM === "0" ? "CHROMIUM=0" : `no ${CHROMIUM}`}): cold assembly measured under Node only.`);
idb.cold = { node: coldNode, chromium: coldChromium, runs: COLD_IDB_RUNS, note: "median of the runs after one warm-up; each run a fresh SealedPast and TokenCounter over the same database" };

// Headlong's own path, when a checkout is at hand.
let headlong = null;
if (headlongAvailable(HEADLONG_DIR)) {
  headlong = { dir: HEADLONG_DIR, sizes: {} };
  const root = mkdtempSync(join(tmpdir(), "reverie-bench-context-"));
  try {
    for (const r of results) {
      log(`\nHeadlong (${HEADLONG_DIR}) on the ${r.steps.toLocaleString()}-step life (measured here):`);
      const { steps, trajId, routeLines } = idleLives.get(r.steps);
      const m = runHeadlong({ headlongDir: HEADLONG_DIR, root: join(root, String(r.steps)), life: { steps, blobs: whole.blobs }, trajId, makeSummaries, runs: HEADLONG_RUNS, log, routeLines });
      const counter = new TokenCounter();
      if (m.context?.messages) m.context.tokens = tokensOf(m.context.messages, counter, MESSAGE_OVERHEAD);
      if (m.route_context?.messages) m.route_context.tokens = tokensOf(m.route_context.messages, counter, MESSAGE_OVERHEAD);
      delete m.route_context?.messages;
      if (m.recap?.text) m.recap.tokens = counter.count(m.recap.text);
      delete m.context?.messages;
      const text = m.recap?.text;
      delete m.recap?.text;
      if (text) m.recap.head = text.slice(0, 400);
      headlong.sizes[r.steps] = m;
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
} else if (HEADLONG_DIR) {
  log(`\nHEADLONG_DIR=${HEADLONG_DIR} has no bin/context and bin/recap: Headlong's path not timed.`);
}

// --- The table -----------------------------------------------------------------

const fx = (v, d = 2) => (v === null || v === undefined ? "—" : Number(v).toFixed(d));
const times = (a, b) => (a && b ? `${Math.round(a / b).toLocaleString()}×` : "—");
const cell = (v, w) => String(v).padStart(w);
const measured = (N) => headlong?.sizes[N];
const ctxRef = (N) => measured(N)?.context?.median_ms ?? REFERENCE.context_ms.low;
const recapRef = (N) => (headlong ? (measured(N)?.recap?.error ? null : measured(N)?.recap?.median_ms) : REFERENCE.recap_ms[N]);
const scanRef = (N) => (headlong ? measured(N)?.scan?.per_wake_ms : REFERENCE.scans_ms[N]);

log(`\nContext assembly (budget ${DEFAULT_BUDGET.toLocaleString()} tokens, blocks of ${F}; ms per call; ${COLD_RUNS} cold runs, ${APPENDS} appends)`);
log(`${"steps".padStart(8)} ${cell("stream", 7)} ${cell("cold med", 9)} ${cell("incr med", 9)} ${cell("incr p90", 9)} ${cell("target", 7)} ${cell(headlong ? "vs context" : "vs 90 ms", 11)} ${cell("vs recap", 9)} ${cell("vs scans", 9)}`);
for (const r of results) {
  const inc = r.incremental_ms.median;
  log(`${cell(r.steps.toLocaleString(), 8)} ${cell(r.stream.toLocaleString(), 7)} ${cell(fx(r.cold_ms.median), 9)} ${cell(fx(inc, 3), 9)} ${cell(fx(r.incremental_ms.p90, 3), 9)} ${cell(r.steps === 100000 ? (inc <= 5 ? "5 ✓" : "5 ✗") : "5", 7)} ${cell(times(ctxRef(r.steps), inc), 11)} ${cell(times(recapRef(r.steps), inc), 9)} ${cell(times(scanRef(r.steps), inc), 9)}`);
}
log(
  headlong
    ? `Headlong figures measured here (${HEADLONG_DIR}): bin/context per call; recap --context warm (render cache up to date, every rollup sealed); the whole-log scan twice per wake.`
    : "Headlong figures: reference (issue text), not measured here — bin/context 90–105 ms per call (ratios use 90 ms), recap --context 0.5 s at 10k and 2.5 s at 100k, per-wake scans 1.2 s at 100k. Set HEADLONG_DIR to measure them.",
);

log(`\nAn idle wake's first look at steady state: its context (tokens, o200k_base; the first look's instructions, ${lookInstructionTokens.toLocaleString()} tokens, on top), against a Headlong-style render of the same log`);
log(`${"steps".padStart(8)} ${cell("ours", 7)} ${cell("life", 6)} ${cell("tiers", 6)} ${cell("elided", 7)} ${cell("tail", 6)} ${cell("verbatim", 9)} ${cell("build ms", 9)} ${cell("Headlong-style", 15)} ${cell("ratio", 7)} ${cell("target", 7)}${headlong ? ` ${cell("real context", 13)} ${cell("real recap", 11)}` : ""}`);
for (const r of results) {
  const ratio = r.idle.tokens / r.headlong_style.tokens;
  const m = measured(r.steps);
  const real = headlong ? ` ${cell(m?.context?.tokens?.toLocaleString() ?? "failed", 13)} ${cell(m?.recap?.tokens?.toLocaleString() ?? "failed", 11)}` : "";
  log(`${cell(r.steps.toLocaleString(), 8)} ${cell(r.idle.tokens.toLocaleString(), 7)} ${cell(r.idle.life_tokens, 6)} ${cell(r.idle.tiers, 6)} ${cell(r.idle.elisions, 7)} ${cell(r.idle.tail_tokens, 6)} ${cell(r.idle.verbatim_steps, 9)} ${cell(fx(r.idle.build_ms.median, 1), 9)} ${cell(r.headlong_style.tokens.toLocaleString(), 15)} ${cell(fx(ratio), 7)} ${cell(ratio <= 0.1 ? "0.1 ✓" : "0.1 ✗", 7)}${real}`);
}
log("life: the summaries kept and the elisions that name the stretches left out (`traj show`/`traj search` reach them); tail: the open block verbatim, the wake's task last; build ms: the first look's assembly (median of LEAN_RUNS, the counter warm).");
log("Headlong-style renderer (re-implemented from its documented behaviour): first step + last 50 + pinned, `[N steps elided]`, same-role messages joined, fields over 2048 bytes cut to head and tail, bookkeeping fields (run ids, timings, token counts) shown.");
for (const r of results) log(`  ${r.steps.toLocaleString()}: before the lean look (full instructions, the staircase at IDLE_BUDGET ${IDLE_BUDGET.toLocaleString()}) ${r.idle.before_tokens.toLocaleString()} tokens; maxVerbatim 20 at the full budget ${r.idle.lean_tokens.toLocaleString()}; the tail 300 with no summaries ${r.idle.today_tokens.toLocaleString()}; Headlong's monolith also puts its "Recent stream" block (${r.headlong_style.recent_stream_tokens.toLocaleString()} tokens) in the prompt`);

log(`\nAn idle wake's first call, whole (tokens: instructions + context + the system message's framing), against Headlong's monolith on the same wake (laude-institute/headlong ${MONOLITH_FIXED.commit}): shellm's system prompt (its fixed texts and usage text, ${MONOLITH_FIXED.shellm_system_tokens.toLocaleString()} tokens, and the fixed words of its run and machine sections, ${MONOLITH_FIXED.shellm_sections_tokens}), and bin/context's render of the log in which each wake's prompt step is its route prompt (identity, life section, recent stream, signals, prompt.md), cut at 2,048 bytes as bin/context cuts every field; the tools list, skills and the sections' values not counted, so a lower bound`);
log(`${"steps".padStart(8)} ${cell("ours", 7)} ${cell("instr", 6)} ${cell("life", 6)} ${cell("tail", 6)} ${cell("before", 7)} ${cell("monolith ≥", 11)} ${cell("of it fixed", 12)} ${cell("routes", 7)} ${cell("ratio", 7)} ${cell("target", 7)}${headlong ? ` ${cell("render", 7)} ${cell("real render", 12)}` : ""}`);
for (const r of results) {
  const f = r.first_call;
  const ratio = f.ours / f.monolith;
  const real = headlong ? ` ${cell(f.monolith_rendered.toLocaleString(), 7)} ${cell(measured(r.steps)?.route_context?.tokens?.toLocaleString() ?? "failed", 12)}` : "";
  log(`${cell(r.steps.toLocaleString(), 8)} ${cell(f.ours.toLocaleString(), 7)} ${cell(r.idle.instruction_tokens, 6)} ${cell(r.idle.life_tokens, 6)} ${cell(r.idle.tail_tokens, 6)} ${cell(f.ours_before.toLocaleString(), 7)} ${cell(f.monolith.toLocaleString(), 11)} ${cell(f.monolith_fixed.toLocaleString(), 12)} ${cell(f.monolith_route_prompts, 7)} ${cell(fx(ratio), 7)} ${cell(ratio <= 0.1 ? "0.1 ✓" : "0.1 ✗", 7)}${real}`);
}
if (headlong) log("render: the monolith's per-call render as re-implemented here; real render: Headlong's own bin/context on the same file (the two must agree).");
log(`instr: the first look's instructions (persona in full, the reply format, the command names; the full ones are ${instructionTokens.toLocaleString()}); before: the first call before the lean look (full instructions, the staircase at IDLE_BUDGET); routes: route prompts in the monolith's rendered tail.`);
for (const r of results) log(`  ${r.steps.toLocaleString()}: a tenth of the monolith is ${Math.round(r.first_call.monolith / 10).toLocaleString()} tokens; the staircase that covers the whole life is ${r.idle.staircase_tokens.toLocaleString()} tokens (${r.idle.staircase_tiers} summaries), of which the first look keeps ${r.idle.tiers}`);

log("\nWhere a warm call's time goes (mean of 20 calls on an unchanged stream; ids() and the tokenizer timed inside them)");
log(`${"steps".padStart(8)} ${cell("build ms", 9)} ${cell("ids ms", 7)} ${cell("ids calls", 10)} ${cell("ids copied", 11)} ${cell("tokenizer ms", 13)} ${cell("plan ms", 8)} ${cell("parts", 6)} ${cell("filter ms", 10)}`);
for (const r of results) {
  const b = r.breakdown;
  log(`${cell(r.steps.toLocaleString(), 8)} ${cell(fx(b.build_ms, 3), 9)} ${cell(fx(b.ids_ms, 3), 7)} ${cell(b.ids_calls, 10)} ${cell(b.ids_copied.toLocaleString(), 11)} ${cell(`${fx(b.tokenizer_ms, 3)} (${b.tokenizer_calls})`, 13)} ${cell(fx(b.plan_ms_each, 3), 8)} ${cell(b.parts, 6)} ${cell(fx(r.filter_ms, 1), 10)}`);
}
log("filter ms: inStream over all the raw steps (done once; not in the cold figure, which starts from the stream in memory).");

log(`\nCold assembly from IndexedDB at ${idb.steps.toLocaleString()} steps — ${idb.note}:`);
log(`  tail ${DEFAULT_RUN_LIMITS.contextSteps} ${fx(idb.live_path.tail_ms, 1)} ms + count ${fx(idb.live_path.count_ms, 1)} ms + build ${fx(idb.live_path.build_ms, 1)} ms = ${fx(idb.live_path.total_ms, 1)} ms (target 300 ms: ${idb.live_path.total_ms <= TARGETS.cold_idb_ms_at_100k ? "✓" : "✗"}; median of ${idb.live_path.runs})`);
log(`  the whole stream instead (every row read, parsed, filtered, then the staircase built): ${idb.whole_stream.read_ms} + ${idb.whole_stream.parse_filter_ms} + ${idb.whole_stream.build_ms} = ${idb.whole_stream.total_ms} ms`);
{
  const c = idb.cold;
  const T = TARGETS.cold_idb_ms_at_100k;
  log(`\nCold assembly with sealed summaries (ms, median of ${c.runs} after a warm-up; target ${T} ms at 100k; ratio = figure / ${T} ms)`);
  log(`${"steps".padStart(8)} ${cell("where", 9)} ${cell("tiers", 7)} ${cell("index", 7)} ${cell("tail", 6)} ${cell("build", 6)} ${cell("total", 7)} ${cell("ratio", 6)} ${cell("read", 5)} ${cell("prefix", 7)} ${cell("sealed", 7)} ${cell("tier parts", 10)} ${cell("whole index", 12)}`);
  for (const N of SIZES) {
    for (const [where, r] of [["node", c.node[N]], ["chromium", c.chromium?.[N]]]) {
      if (!r) continue;
      const ratio = r.total_ms / T;
      log(`${cell(N.toLocaleString(), 8)} ${cell(where, 9)} ${cell(fx(r.tiers_ms, 1), 7)} ${cell(fx(r.keys_ms, 1), 7)} ${cell(fx(r.tail_ms, 1), 6)} ${cell(fx(r.build_ms, 1), 6)} ${cell(fx(r.total_ms, 1), 7)} ${cell(`${fx(ratio)}${N === 100000 ? (ratio <= 1 ? " ✓" : " ✗") : ""}`, 6)} ${cell(r.keys_read, 5)} ${cell(r.prefix.toLocaleString(), 7)} ${cell(r.sealed.toLocaleString(), 7)} ${cell(r.tier_parts, 10)} ${cell(r.whole_index ? `${fx(r.whole_index.ms, 0)} ms` : "—", 12)}`);
    }
  }
  log("tiers: every sealed summary read; index: the sealed past placed from their seqs, then the stream index read after it (`read` entries; `prefix` positions known by their blocks' ends); tail: the newest 300 rows; build: the staircase.");
  log("whole index: the stream index read key by key from the start, as a start did before tier rows kept their seqs (under Node only at 1k: fake-indexeddb's key cursor took 57.6 s at 10k).");
  if (c.chromium?.browser) log(`Chromium: ${c.chromium.browser}, headless, fresh profile, same machine and the same rows.`);
}

const result = {
  sizes: results.map((r) => ({ ...r, headlong_measured: measured(r.steps) ?? null })),
  indexeddb: idb,
  headlong: headlong ? { dir: HEADLONG_DIR, measured: true } : { measured: false, reference: REFERENCE, note: "reference (issue text), not measured here" },
  targets: TARGETS,
  notes: [
    "summaries are generated text, not model output",
    "Headlong-style renderer (re-implemented from its documented behaviour)",
    "fake-indexeddb under Node stands in for Chromium's IndexedDB; sealed summaries are the stand-in text, stored in the tiers table as the summarizer stores them",
  ],
  budget: DEFAULT_BUDGET,
  instruction_tokens: instructionTokens,
  first_look_instruction_tokens: lookInstructionTokens,
  node: process.version,
  when: new Date().toISOString(),
};
mkdirSync("bench/results", { recursive: true });
// A patched copy's figures go beside the tree's own, never over them.
const out = process.env.CONTEXT_DIR ? "bench/results/context-patched.json" : "bench/results/context.json";
writeFileSync(out, `${JSON.stringify({ ...result, context_dir: process.env.CONTEXT_DIR ?? "lib/context" }, null, 2)}\n`);
log(`\nwrote ${out}`);
