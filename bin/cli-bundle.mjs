// The command line's bundle: cli/ and the lib/ code it uses, compiled once by
// esbuild into node_modules/.cache/reverie-cli/, so a start loads plain
// JavaScript instead of compiling TypeScript (tsx took 2–5 s a start).
//
// current.json names the newest bundle and every source file that went into
// it, with its mtime and size (from esbuild's metafile). The bundle is fresh
// while each of them is unchanged and npm has not installed anything since
// (node_modules/.package-lock.json); checking is one stat per file, about a
// hundred of them. A new file only enters through an import in a file that
// changed, so the list needs nothing else.
//
// `node bin/cli-bundle.mjs` builds it (npm's `prepare` runs that after
// `npm ci`); bin/reverie.mjs builds it on the first start that finds it
// missing or stale. This module imports esbuild only when it builds.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Script } from "node:vm";

const ROOT = new URL("../", import.meta.url);
export const CACHE = new URL("node_modules/.cache/reverie-cli/", ROOT);
const CURRENT = new URL("current.json", CACHE);
const LOCK = new URL("build.lock/", CACHE);
/** Not sources, but a change to them must rebuild too: what npm installed, and how the bundle is made. */
const ALSO = ["node_modules/.package-lock.json", "bin/cli-bundle.mjs"];
/** Sources a plugin read while building (the compiled checks' generator and the schemas it compiles): the bundle is stale when they change. */
const pluginInputs = new Set();
/** A lock older than this is from a build that died; a build takes a few seconds. */
const STALE_LOCK_MS = 60_000;
/** Bundles replaced more than this long ago are deleted (a process may still be loading one). */
const KEEP_OLD_MS = 10 * 60_000;

/** The bundle's entry module when it is up to date with the sources, else null. */
export function freshBundle() {
  let current;
  try {
    current = JSON.parse(readFileSync(CURRENT, "utf8"));
  } catch {
    return null;
  }
  for (const [path, mtime, size] of current.inputs) {
    const s = statSync(new URL(path, ROOT), { throwIfNoEntry: false });
    if (!s || s.mtimeMs !== mtime || s.size !== size) return null;
  }
  return new URL(`${current.dir}/reverie.mjs`, CACHE);
}

/**
 * The fresh bundle's entry, built first when there is none. Concurrent
 * callers (test files spawning the CLI in parallel) build it once: the others
 * wait for the lock and use what it built.
 */
export async function ensureBundle({ onBuild } = {}) {
  for (;;) {
    const fresh = freshBundle();
    if (fresh) return fresh;
    if (takeLock()) {
      try {
        return freshBundle() ?? (onBuild?.(), await buildBundle());
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

function takeLock() {
  mkdirSync(CACHE, { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch (e) {
    if (e.code !== "EEXIST") throw e;
    const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

/** Builds a new bundle beside the old ones and makes it current; returns its entry. */
export async function buildBundle() {
  const { build } = await import("esbuild");
  const dir = `b-${Date.now().toString(36)}-${process.pid}`;
  const outdir = fileURLToPath(new URL(`${dir}/`, CACHE));
  const result = await build({
    absWorkingDir: fileURLToPath(ROOT),
    entryPoints: { reverie: "cli/reverie.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "[name]-[hash]",
    bundle: true,
    // Each verb is its own chunk, loaded by its dynamic import: `--help` and `check` never parse the tokenizer or the shell.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // just-bash ships its own bundle whose commands load lazily from chunks, and names optional packages it may never load.
    external: ["just-bash"],
    // Bundled CommonJS packages may call require; an ES module has none of its own.
    banner: { js: 'import { createRequire as __reverieRequire } from "node:module"; const require = __reverieRequire(import.meta.url);' },
    plugins: [tokenTable(outdir), compiledChecks(), scanModule(), zodWithoutLocales()],
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    // A cold start parses every function of what it loads: without the white space and comments there is less to scan.
    // (Names are kept, so a stack trace still reads.)
    minifyWhitespace: true,
    minifySyntax: true,
  });
  const script = await build({
    absWorkingDir: fileURLToPath(ROOT),
    entryPoints: ["cli/context-main.ts"],
    outfile: join(outdir, CONTEXT_SCRIPT),
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // A script has no import.meta: the one module that asks (the table's reader, for the table beside it) is given its file's URL.
    define: { "import.meta.url": "__reverieUrl" },
    banner: { js: 'const __reverieUrl = require("node:url").pathToFileURL(__filename).href;' },
    plugins: [tokenTableModule(), compiledChecks(), scanModule(), leftToBundle()],
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    minifyWhitespace: true,
    minifySyntax: true,
  });
  const sources = [result, script].flatMap((r) => Object.keys(r.metafile.inputs)).filter((p) => !p.startsWith("node_modules/") && !p.includes(":"));
  const inputs = [...new Set([...sources, ...pluginInputs, ...ALSO])].map((path) => {
    const s = statSync(new URL(path, ROOT));
    return [path, s.mtimeMs, s.size];
  });
  const tmp = new URL(`current.${process.pid}.json`, CACHE);
  writeFileSync(tmp, `${JSON.stringify({ dir, built: new Date().toISOString(), inputs })}\n`);
  renameSync(tmp, CURRENT);
  removeOld(dir);
  return new URL(`${dir}/reverie.mjs`, CACHE);
}

/**
 * The token counts from a table, not gpt-tokenizer's Map: lib/context's
 * #count-o200k module is replaced by cli/count-o200k-table.ts, which reads
 * o200k_base.bpe, written here beside the chunks from gpt-tokenizer's own
 * ranks (lib/context/bpe-table.ts; test/unit/context/bpe-table.test.ts holds the two to
 * the same counts). Building the library's Map took a quarter second of every
 * `reverie context`; reading the table takes a millisecond.
 */
function tokenTable(outdir) {
  return {
    name: "token-table",
    setup(build) {
      tokenTableModule().setup(build);
      build.onStart(async () => {
        // bpe-table.ts is TypeScript: esbuild compiles it for this process, which then runs it on the library's ranks.
        const { outputFiles } = await build.esbuild.build({
          absWorkingDir: fileURLToPath(ROOT),
          entryPoints: ["lib/context/bpe-table.ts"],
          bundle: true,
          write: false,
          format: "esm",
          platform: "node",
          logLevel: "warning",
        });
        const { buildBpeTable } = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].contents).toString("base64")}`);
        const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
        mkdirSync(outdir, { recursive: true });
        writeFileSync(join(outdir, "o200k_base.bpe"), buildBpeTable(ranks));
      });
    },
  };
}

/** lib/context's #count-o200k as cli/count-o200k-table.ts (the table's reader), without writing the table: the chunks' build writes it. */
function tokenTableModule() {
  return {
    name: "token-table-module",
    setup(build) {
      build.onResolve({ filter: /^#count-o200k$/ }, (args) => {
        if (!/[\\/]lib[\\/]context$/.test(args.resolveDir)) return undefined;
        return { path: fileURLToPath(new URL("cli/count-o200k-table.ts", ROOT)) };
      });
    },
  };
}

/**
 * The context script carries what cli/context-main.ts imports statically, no
 * more: each dynamic import in it (an archive's reader, zod) becomes a module
 * that throws, and the script leaves the command to the whole bundle.
 */
function leftToBundle() {
  return {
    name: "left-to-bundle",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => (args.kind === "dynamic-import" ? { path: args.path, namespace: "reverie-left-to-bundle" } : undefined));
      build.onLoad({ filter: /.*/, namespace: "reverie-left-to-bundle" }, (args) => ({ contents: `throw new Error(${JSON.stringify(`${args.path}: left to the whole bundle`)});\n`, loader: "js" }));
    },
  };
}

/** A TypeScript module of ours compiled for this process and imported (it runs here, at build time); its sources join the bundle's inputs. */
async function runHere(build, entry) {
  const { outputFiles, metafile } = await build.esbuild.build({
    absWorkingDir: fileURLToPath(ROOT),
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  for (const p of Object.keys(metafile.inputs)) if (!p.startsWith("node_modules/") && !p.includes(":")) pluginInputs.add(p);
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].contents).toString("base64")}`);
}

/**
 * The step checks `reverie context` runs, compiled (cli/step-check-gen.ts:
 * zod's own code generator over the schemas) when the bundle is made and
 * written out in place of cli/step-checks.ts, which makes them at every start
 * under the sources. The checks import the few helpers of zod's util module
 * they name, not zod: loading zod and building the schemas took a fifth of a
 * cold `reverie context`. Should the generator fail, the module says it knows
 * no kind, and every line is checked by zod, as before.
 */
function compiledChecks() {
  return {
    name: "compiled-checks",
    setup(build) {
      build.onResolve({ filter: /^\.\/step-checks$/ }, (args) => (/[\\/]cli$/.test(args.resolveDir) ? { path: "step-checks", namespace: "reverie-step-checks" } : undefined));
      build.onLoad({ filter: /.*/, namespace: "reverie-step-checks" }, async () => {
        try {
          const { checksBody } = await runHere(build, "cli/step-check-gen.ts");
          const { body, helpers } = checksBody();
          const util = fileURLToPath(new URL("util.js", import.meta.resolve("zod/v4/core")));
          const names = helpers.join(", ");
          return {
            contents: `import { ${names} } from ${JSON.stringify(util)};\nexport default (function (zodUtil) {\n${body}\n})({ ${names} });\n`,
            resolveDir: fileURLToPath(ROOT),
            loader: "js",
          };
        } catch (e) {
          return {
            contents: 'export default { checks: {}, definite: {}, asWritten: {}, known: [], unknownDefinite: false, tierLineDefinite: false, invalid: Symbol.for("zod.compile.invalid") };\n',
            loader: "js",
            warnings: [{ text: `the step checks were not compiled (${e instanceof Error ? e.message : e}); reverie context checks lines with zod` }],
          };
        }
      });
    },
  };
}

/**
 * The WebAssembly module of `reverie context`'s scan (cli/context-scan-wasm-code.ts),
 * assembled when the bundle is made and written out in place of
 * cli/context-scan-wasm-module.ts, which assembles it at first use under the
 * sources: a start runs no assembler (some 4M instructions of interpreted
 * JavaScript). Should assembling fail here, the module assembles at first use.
 */
function scanModule() {
  return {
    name: "scan-module",
    setup(build) {
      build.onResolve({ filter: /^\.\/context-scan-wasm-module$/ }, (args) => (/[\\/]cli$/.test(args.resolveDir) ? { path: "context-scan-wasm-module", namespace: "reverie-scan-module" } : undefined));
      build.onLoad({ filter: /.*/, namespace: "reverie-scan-module" }, async () => {
        try {
          const { assemble } = await runHere(build, "cli/context-scan-wasm-code.ts");
          const base64 = Buffer.from(assemble()).toString("base64");
          return { contents: `export const scanModuleBytes = () => new Uint8Array(Buffer.from(${JSON.stringify(base64)}, "base64"));\n`, loader: "js" };
        } catch (e) {
          return {
            contents: `export * from ${JSON.stringify(fileURLToPath(new URL("cli/context-scan-wasm-module.ts", ROOT)))};\n`,
            resolveDir: fileURLToPath(ROOT),
            loader: "js",
            warnings: [{ text: `the scan's module was not assembled (${e instanceof Error ? e.message : e}); it is assembled at first use` }],
          };
        }
      });
    },
  };
}

/**
 * zod's `z.locales`, every language's error messages (370 KB, more than the
 * rest of zod a verb loads), left out: nothing here names a locale, and zod
 * imports English, the one it uses, itself. zod's core re-exports them as a
 * namespace, so `import * as z` alone does not drop them.
 */
function zodWithoutLocales() {
  return {
    name: "zod-without-locales",
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir) ? { path: "zod-locales", namespace: "reverie-empty" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "reverie-empty" }, () => ({ contents: "export {};\n", loader: "js" }));
    },
  };
}

/** The context script's file, beside the chunks, and its code cache beside it. */
const CONTEXT_SCRIPT = "context.cjs";

/**
 * `reverie context` from the script beside the bundle's entry (cli/context-main.ts):
 * the exit code, or undefined when the whole bundle must run it (and for a
 * bundle made before the script was). The script is compiled from V8's code
 * cache, written beside it after the first run that had none (or whose cache
 * V8 refused: another Node, other flags), with the functions that run
 * compiled: the run after it neither parses nor compiles them. The cache is of
 * this bundle's script alone (a new bundle is a new folder), so V8's own check
 * of it (its version, its flags, the source's length) is enough.
 */
export async function runContextScript(entry, argv, io) {
  const file = fileURLToPath(new URL(CONTEXT_SCRIPT, entry));
  const cacheFile = `${file}.cache`;
  let source;
  let cached;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  // Wrapped as Node wraps a CommonJS module, and run as one.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, ...(cached ? { cachedData: cached } : {}) });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const code = await module.exports.contextFast(argv, io);
  if (code !== undefined && (!cached || script.cachedDataRejected)) {
    // Made now, it holds every function the run compiled. Written whole or not at all (a run beside this one reads it).
    try {
      const tmp = `${cacheFile}.${process.pid}`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // A folder we may not write to: the next run compiles the script again.
    }
  }
  return code;
}

function removeOld(keep) {
  for (const name of readdirSync(CACHE)) {
    if (!name.startsWith("b-") || name === keep) continue;
    const at = new URL(`${name}/`, CACHE);
    if (Date.now() - (statSync(at, { throwIfNoEntry: false })?.mtimeMs ?? 0) > KEEP_OLD_MS) rmSync(at, { recursive: true, force: true });
  }
}

// `node bin/cli-bundle.mjs`: build now (npm's prepare). Never fails the install: the first start builds instead.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    const started = performance.now();
    await ensureBundle();
    console.log(`reverie: the command line is bundled (${Math.round(performance.now() - started)} ms)`);
  } catch (e) {
    console.warn(`reverie: the command line was not bundled now (${e instanceof Error ? e.message : e}); its first start will do it`);
  }
}
