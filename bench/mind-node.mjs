#!/usr/bin/env node
// The loop bench/mind measures, under Node: lib/home/tab.ts's runMind over
// fake-indexeddb, against the instant model. Not a benchmark of its own: a
// tool for finding where the time goes (run it with --cpu-prof, or compare
// CACHE=off, which switches off Dexie's liveQuery cache on the mind's
// database, as `new Dexie(name, { cache: "disabled" })` would).
//
//   node bench/mind-node.mjs                    (CALLS=600; CACHE=on)
//   CACHE=off node bench/mind-node.mjs
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/mind-node.mjs
//   node --expose-gc bench/mind-node.mjs        (and the heap still held after the calls, collected)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import "fake-indexeddb/auto";
import { tsImport } from "tsx/esm/api";
import { startInstantModel } from "./mind-model.mjs";
import { stats } from "./mind-trajectory.mjs";

const { ReverieDb } = await tsImport("../lib/store/db/db.ts", import.meta.url);
const { createMind, updateSettings } = await tsImport("../lib/store/minds/minds.ts", import.meta.url);
const { runMind } = await tsImport("../lib/home/tab.ts", import.meta.url);
const { createModel, modelLabel } = await tsImport("../lib/llm/model.ts", import.meta.url);
const { modelPort } = await tsImport("../lib/llm/complete.ts", import.meta.url);

const CALLS = Number(process.env.CALLS ?? 600);
const model = await startInstantModel();
const db = new ReverieDb(`mind-node-${process.pid}`);
await db.open();
if (process.env.CACHE === "off") db._options.cache = "disabled";
const settings = { provider: "openai-compatible", baseURL: model.url, model: "instant", apiKey: "k" };
const mind = await createMind(db, { name: "Bench", persona: "p", model: settings });
await updateSettings(db, mind.id, { model: settings, pacing: { base_s: 0.05, cap_s: 0.05, ticks_per_level: 3 }, max_iterations: 100 });

// The mind's own model port, timed: how long each complete() takes (the AI SDK
// and HTTP against an instant server), and the loop's time between them.
const real = modelPort(await createModel(settings), modelLabel(settings));
const timed = [];
const port = {
  name: real.name,
  async complete(req) {
    const t = performance.now();
    const r = await real.complete(req);
    timed.push({ start: t, end: performance.now() });
    return r;
  },
};
// And the step writes: the mind's own go in batches (bulkAdd), a step alone through add. Patched on
// the Table class: the database hands out new Table objects when it is opened again.
const adds = [];
const batches = [];
const proto = db.steps.constructor.prototype;
for (const method of ["add", "bulkAdd"]) {
  const original = proto[method];
  proto[method] = async function (...args) {
    if (this.name !== "steps") return original.apply(this, args);
    const t = performance.now();
    if (method === "bulkAdd") batches.push(args[0].length);
    try {
      return await original.apply(this, args);
    } finally {
      adds.push({ start: t, end: performance.now() });
    }
  };
}
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
};
const heapBefore = globalThis.gc ? await collect() : 0;
const handle = await runMind(db, mind.id, () => undefined, { model: port });
const t0 = performance.now();
while (model.calls.length < CALLS) await new Promise((r) => setTimeout(r, 50));
const wall = performance.now() - t0;
// What the calls left behind while the mind still runs (a call's objects held after it ended show here), collected.
const heapHeld = globalThis.gc ? (await collect()) - heapBefore : 0;
await handle.stop();
await handle.done;
const cs = model.calls.slice(50, CALLS);
console.log(
  `cache ${process.env.CACHE === "off" ? "off" : "on "}: ${CALLS} calls in ${Math.round(wall)} ms;`,
  "gap (answer sent → next call), ms:",
  stats(cs.slice(1).map((c, i) => c.at - cs[i].sent)),
);
const ts = timed.slice(50, CALLS);
console.log("  model.complete() (AI SDK + HTTP to an instant server), ms:", stats(ts.map((t) => t.end - t.start)));
console.log("  the loop between complete() calls (appends, exec, context), ms:", stats(ts.slice(1).map((t, i) => t.start - ts[i].end)));
const from = ts[0].start;
const inWindow = adds.filter((a) => a.start >= from && a.end <= ts.at(-1).end);
const sizes = batches;
console.log(`  step batches (db.steps.bulkAdd): ${(sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length)).toFixed(2)} steps each, ${sizes.length} batches in all`);
console.log("  step writes (add or bulkAdd), ms:", stats(inWindow.map((a) => a.end - a.start)), `${(inWindow.length / (ts.length - 1)).toFixed(2)} a call`);
console.log(`  ${await db.steps.count()} steps stored; ${await db.tiers.count()} blocks sealed`);
if (globalThis.gc) console.log(`  heap held with the mind running, collected: ${(heapHeld / 1e6).toFixed(1)} MB (${(heapHeld / CALLS / 1e3).toFixed(1)} kB a call)`);
await model.close();
db.close();
