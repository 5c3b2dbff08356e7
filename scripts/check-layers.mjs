#!/usr/bin/env node
// The layer rules of shared/design/ARCHITECTURE.md, checked on every import,
// and two of STYLE.md's: product files small enough to read in one sitting,
// and pure layers that parse what they read rather than cast it (issue 36).
// Prints each violation as file:line and exits 1 if there is any.
import { readFileSync } from "node:fs";
import { sourceFiles } from "./source-files.mjs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = process.cwd();
const SCAN = ["app", "components", "workers", "lib", "cli"];
const PURE = ["lib/trajectory", "lib/context", "lib/mind", "lib/onboarding"];
/** Past this many lines a product file is split by responsibility. */
const MAX_LINES = 400;
/** `as` type assertions (`as const` is none) the pure layers hold in all. */
const MAX_PURE_CASTS = 5;
/** The store's React hooks (lib/store/view/hooks.ts and its siblings hooks-*.ts): the one door from components into lib/store. */
const STORE_HOOKS = /^lib\/store\/view\/hooks(-[\w-]+)?(\.tsx?)?$/;


const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:([^"';]*?)\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** `import { type A, type B } from` is type-only too: every name in the braces is a type. */
function inlineTypesOnly(clause) {
  const names = /^\{([^}]*)\}$/.exec(clause?.trim() ?? "")?.[1].split(",").map((n) => n.trim()).filter(Boolean);
  return Boolean(names?.length) && names.every((n) => /^type\s/.test(n));
}

/** package.json's "imports" (#name → a file of ours, per condition): checked as the file Node gets (its "default"). */
const SUBPATHS = (() => {
  try {
    return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).imports ?? {};
  } catch {
    return {}; // no package.json (a bare tree): no #names
  }
})();

/** Where an import points: a repo-relative path for our code, or the package name. */
function target(file, spec) {
  if (spec.startsWith("@/")) return { local: normalize(spec.slice(2)) };
  if (spec.startsWith("#")) {
    const to = SUBPATHS[spec];
    const path = typeof to === "string" ? to : to?.default;
    if (!path) return { pkg: spec };
    return { local: normalize(path).replace(/\.tsx?$/, "") };
  }
  if (spec.startsWith(".")) return { local: relative(ROOT, normalize(join(dirname(file), spec))) };
  const parts = spec.split("/");
  return { pkg: spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0] };
}

const within = (path, dir) => path === dir || path.startsWith(`${dir}/`);
const problems = [];
/** The pure layers' TypeScript, whose casts are counted once the scan is done. */
const pureSources = [];

/** The `as` assertions in a TypeScript file, found by the compiler's parser (a regex would count comments, strings and `as const`). */
function castsIn(ts, file, src) {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === "const")) {
      const text = node.getText(sf).replace(/\s+/g, " ");
      found.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: text.length > 80 ? `${text.slice(0, 77)}...` : text });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

for (const top of SCAN) {
  for (const abs of sourceFiles(join(ROOT, top))) {
    const file = relative(ROOT, abs);
    const src = readFileSync(abs, "utf8");
    const lineOf = (index) => src.slice(0, index).split("\n").length;
    const say = (index, msg) => problems.push(`${file}:${lineOf(index)}: ${msg}`);

    const lines = src.split("\n").length - (src.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES) problems.push(`${file}:${MAX_LINES + 1}: ${lines} lines; a product file stays within ${MAX_LINES} (split it by responsibility)`);
    if (PURE.some((d) => within(file, d)) && /\.tsx?$/.test(file)) pureSources.push({ file, src });

    for (const m of src.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4];
      const typeOnly = Boolean(m[1]) || inlineTypesOnly(m[2]);
      const t = target(file, spec);
      const at = m.index + m[0].length - spec.length;
      if (within(file, "lib")) {
        if (t.local && !within(t.local, "lib")) say(at, `lib/ must not import ${t.local} (lib never imports app/, components/, workers/ or cli/)`);
        if (t.pkg === "dexie" && !within(file, "lib/store")) say(at, "only lib/store touches IndexedDB (dexie)");
        if (t.pkg && /^(react|react-dom|next)$/.test(t.pkg) && !STORE_HOOKS.test(file)) say(at, `lib/ must not depend on ${t.pkg}`);
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
      // Components do no I/O: they reach the store through its hooks. Its types are fine (they vanish from the build).
      if (within(file, "components") && t.local && within(t.local, "lib/store") && !STORE_HOOKS.test(t.local) && !typeOnly) say(at, `components reach lib/store through its hooks (lib/store/view/hooks*), not ${t.local} (import type is fine)`);
      // The command line is an edge, like workers/: it wires lib/ to node: builtins and packages, and nothing imports it but itself.
      if (within(file, "cli") && t.local && !within(t.local, "lib") && !within(t.local, "cli")) say(at, `cli/ imports lib/ only, not ${t.local}`);
      if (t.local && within(t.local, "cli") && (within(file, "app") || within(file, "components"))) say(at, "app/ and components/ never import cli/ (the command line's edge)");
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

// The compiler takes a third of a second to load: only a tree with pure layers pays for it.
const ts = pureSources.length ? (await import("typescript")).default : undefined;
const pureCasts = ts ? pureSources.flatMap(({ file, src }) => castsIn(ts, file, src)) : [];
if (pureCasts.length > MAX_PURE_CASTS) {
  for (const c of pureCasts) problems.push(`${c.file}:${c.line}: \`${c.text}\`: the pure layers hold ${pureCasts.length} \`as\` casts, at most ${MAX_PURE_CASTS} (parse with a schema or narrow instead)`);
}

if (problems.length) {
  console.error(`Layer rules broken (${problems.length}):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log("layers: ok");
