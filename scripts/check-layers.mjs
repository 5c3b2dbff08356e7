#!/usr/bin/env node
// The layer rules of shared/design/ARCHITECTURE.md, checked on every import.
// Prints each violation as file:line and exits 1 if there is any.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = process.cwd();
const SCAN = ["app", "components", "workers", "lib"];
const PURE = ["lib/trajectory", "lib/context", "lib/mind", "lib/onboarding"];

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx|mjs|js)$/.test(name)) yield p;
  }
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Where an import points: a repo-relative path for our code, or the package name. */
function target(file, spec) {
  if (spec.startsWith("@/")) return { local: normalize(spec.slice(2)) };
  if (spec.startsWith(".")) return { local: relative(ROOT, normalize(join(dirname(file), spec))) };
  const parts = spec.split("/");
  return { pkg: spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0] };
}

const within = (path, dir) => path === dir || path.startsWith(`${dir}/`);
const problems = [];

for (const top of SCAN) {
  for (const abs of files(join(ROOT, top))) {
    const file = relative(ROOT, abs);
    const src = readFileSync(abs, "utf8");
    const lineOf = (index) => src.slice(0, index).split("\n").length;
    const say = (index, msg) => problems.push(`${file}:${lineOf(index)}: ${msg}`);

    for (const m of src.matchAll(IMPORT)) {
      const spec = m[2] ?? m[3];
      const typeOnly = Boolean(m[1]);
      const t = target(file, spec);
      const at = m.index + m[0].length - spec.length;
      if (within(file, "lib")) {
        if (t.local && !within(t.local, "lib")) say(at, `lib/ must not import ${t.local} (lib never imports app/, components/ or workers/)`);
        if (t.pkg === "dexie" && !within(file, "lib/store")) say(at, "only lib/store touches IndexedDB (dexie)");
        if (t.pkg && /^(react|react-dom|next)$/.test(t.pkg) && !within(file, "lib/store/view/hooks.ts")) say(at, `lib/ must not depend on ${t.pkg}`);
      }
      if (within(file, "lib/protocol") && !typeOnly) say(at, "lib/protocol imports nothing");
      if (PURE.some((d) => within(file, d))) {
        // zod everywhere; a tokenizer (pure computation, no I/O) in lib/context.
        const allowed = t.pkg === "zod" || (t.pkg === "gpt-tokenizer" && within(file, "lib/context"));
        if (t.pkg && !allowed) say(at, `pure layer imports package '${t.pkg}' (only zod, and gpt-tokenizer in lib/context; I/O comes through ports)`);
        if (t.local && !PURE.concat("lib/protocol").some((d) => within(t.local, d))) say(at, `pure layer imports ${t.local}; pure layers import only each other and lib/protocol`);
      }
      if (within(file, "workers") && t.local && !within(t.local, "lib") && !within(t.local, "workers")) say(at, `workers/ imports lib/ only, not ${t.local}`);
      if (within(file, "workers") && t.pkg) say(at, `workers/ imports lib/ only, not the package '${t.pkg}'`);
      if (within(file, "components") && t.pkg === "dexie") say(at, "components read state through hooks, never dexie directly");
      if (within(file, "components") && t.local && within(t.local, "workers")) say(at, "components start workers by URL, never import them");
      if (within(file, "app") && t.local && within(t.local, "workers")) say(at, "app/ never imports workers/");
      // Route handlers are thin: they parse, call lib/server, return. Packages other than next (and its server-only marker) belong in lib/server.
      if (within(file, "app/api") && t.local && !within(t.local, "lib/server")) say(at, `app/api imports only lib/server, not ${t.local}`);
      if (within(file, "app/api") && t.pkg && !/^(next|server-only)$/.test(t.pkg)) say(at, `app/api imports only lib/server, not the package '${t.pkg}'`);
      if (t.local && within(t.local, "lib/server") && !within(file, "lib/server") && !within(file, "app")) say(at, "lib/server is server-only: import it from app/ route handlers only");
    }

    if (PURE.some((d) => within(file, d))) {
      // Time, randomness and the browser come through ports too (Clock, Ids), so a test can drive them.
      for (const m of src.matchAll(/\b(process\.env|indexedDB|localStorage|document\.|window\.|fetch\(|Date\.now|crypto\.|setTimeout|setInterval|performance\.|navigator\.)/g)) {
        say(m.index, `pure layer touches '${m[1]}'; take it through a port`);
      }
    }
    if (within(file, "lib/server") && !/^\s*import\s+["']server-only["']/m.test(src)) say(0, 'lib/server files start with import "server-only"');
  }
}

if (problems.length) {
  console.error(`Layer rules broken (${problems.length}):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log("layers: ok");
