#!/usr/bin/env node
// Who may write a mind's steps, and where its settings schema comes from: the
// rules of one writer (issue 36), checked on every file of the product.
//   1. A step reaches IndexedDB only through the store's one writer
//      (lib/store/steps/steps.ts: the page's appends) or the state port's
//      implementation (lib/store/state/); sync_steps only through sync's one
//      SQL writer (lib/server/sync/steps.ts).
//   2. A state's batch append (`.append({ steps … })`) is made only by the
//      mind's one writer (lib/mind/log/mind-log.ts) and the port's
//      implementations (lib/*/state/): no home appends around its mind.
//   3. The page's writer (appendStep, appendSteps) is lib/store's: no home,
//      worker or server code appends a step with it.
//   4. The mind's settings schema is imported from lib/mind/settings only, and
//      lib/store neither defines it again nor hands it on.
//   5. A stored step is never changed or deleted (sync_steps' trigger refuses
//      it, migration 14): no UPDATE, DELETE or TRUNCATE of sync_steps, nor
//      the trigger's one way past (the setting reverie.forget_mind), but
//      where a whole mind is forgotten (lib/server/sync/forget.ts).
// Prints each violation as file:line and exits 1 if there is any.
import { readFileSync } from "node:fs";
import { sourceFiles } from "./source-files.mjs";
import { join, relative } from "node:path";

const ROOT = process.argv[2] ?? process.cwd();
const SCAN = ["app", "components", "workers", "lib", "cli"];
const within = (path, dir) => path === dir || path.startsWith(`${dir}/`);


const STATE_PORTS = ["lib/store/state", "lib/server/state", "lib/mind/state"];
const RULES = [
  {
    what: /\bdb\.steps\.(add|put|bulkAdd|bulkPut|update|modify|delete|bulkDelete|clear)\(|table:\s*["']steps["']/g,
    allowed: (f) => f === "lib/store/steps/steps.ts" || within(f, "lib/store/state") || f === "lib/store/db/raw-write.ts",
    say: "writes IndexedDB's steps table: only the store's one writer (lib/store/steps/steps.ts) and the state port (lib/store/state/) do",
  },
  {
    what: /INSERT\s+INTO\s+sync_steps/gi,
    allowed: (f) => f === "lib/server/sync/steps.ts",
    say: "writes sync_steps: only sync's one SQL writer (lib/server/sync/steps.ts) does",
  },
  {
    what: /\b(UPDATE\s+sync_steps|DELETE\s+FROM\s+sync_steps|TRUNCATE\s+(TABLE\s+)?sync_steps)\b/gi,
    allowed: (f) => f === "lib/server/sync/forget.ts",
    say: "changes or deletes stored steps: sync_steps is append-only (its trigger refuses it); only forgetting a whole mind (lib/server/sync/forget.ts) removes them",
  },
  {
    what: /reverie\.forget_mind/g,
    allowed: (f) => f === "lib/server/sync/forget.ts" || f === "lib/server/db/migrations.ts",
    say: "names sync_steps' way past its append-only trigger: only forgetting a whole mind (lib/server/sync/forget.ts) sets it",
  },
  {
    what: /\.append\(\s*\{\s*steps\b/g,
    allowed: (f) => f === "lib/mind/log/mind-log.ts" || STATE_PORTS.some((d) => within(f, d)),
    say: "appends a batch to a mind's state around its writer: only the mind's writer (lib/mind/log/mind-log.ts) and the port's implementations do",
  },
  {
    what: /\bimport\s[^;]*\bappendSteps?\b[^;]*from\s+["'][^"']*steps\/steps["']/g,
    allowed: (f) => within(f, "lib/store"),
    say: "uses the page's step writer (appendStep): a home, worker or server appends through the mind's state port",
  },
  {
    what: /\bimport\s[^;]*\b(MindSettings|parseMindSettings)\b[^;]*from\s+["']([^"']*store\/[^"']*)["']/g,
    allowed: () => false,
    say: "imports the mind's settings schema from lib/store: it is lib/mind/settings/settings.ts's",
  },
  {
    what: /export\s+(const|type)\s+\w+\s*=\s*MindSettings\b|export\s*\{[^}]*\bMindSettings\b[^}]*\}/g,
    allowed: (f) => !within(f, "lib/store"),
    say: "hands on the mind's settings schema from lib/store: import it from lib/mind/settings/settings.ts",
  },
];

const problems = [];
for (const top of SCAN) {
  for (const abs of sourceFiles(join(ROOT, top))) {
    const file = relative(ROOT, abs);
    const src = readFileSync(abs, "utf8");
    for (const rule of RULES) {
      if (rule.allowed(file)) continue;
      for (const m of src.matchAll(rule.what)) problems.push(`${file}:${src.slice(0, m.index).split("\n").length}: ${rule.say}`);
    }
  }
}

// In path order, whatever order the folders are read in.
problems.sort();
if (problems.length) {
  console.error(`Writer rules broken (${problems.length}):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log("writers: ok");
