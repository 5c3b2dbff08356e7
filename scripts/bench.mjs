#!/usr/bin/env node
// `npm run bench` runs every benchmark in bench/ (files named *.bench.mjs);
// `npm run bench -- NAME` runs bench/NAME.bench.mjs. Each prints its table and
// writes bench/results/NAME.json.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const wanted = process.argv.slice(2);
const all = readdirSync("bench").filter((f) => f.endsWith(".bench.mjs")).map((f) => f.replace(/\.bench\.mjs$/, ""));
const names = wanted.length ? wanted : all;
if (names.length === 0) {
  console.log("No benchmarks in bench/ yet.");
  process.exit(0);
}
let failed = 0;
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`No benchmark '${name}' (have: ${all.join(", ") || "none"}).`);
    failed++;
    continue;
  }
  console.log(`\n== ${name} ==`);
  const r = spawnSync(process.execPath, [`bench/${name}.bench.mjs`], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
