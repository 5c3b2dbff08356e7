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
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = new URL("../", import.meta.url);
export const CACHE = new URL("node_modules/.cache/reverie-cli/", ROOT);
const CURRENT = new URL("current.json", CACHE);
const LOCK = new URL("build.lock/", CACHE);
/** Not sources, but a change to them must rebuild too: what npm installed, and how the bundle is made. */
const ALSO = ["node_modules/.package-lock.json", "bin/cli-bundle.mjs"];
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
    plugins: [ranksAsJson(outdir)],
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
  });
  const sources = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith("node_modules/") && !p.includes(":"));
  const inputs = [...sources, ...ALSO].map((path) => {
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
 * o200k's 200,000 ranks (gpt-tokenizer's 2.4 MB array literal) as JSON beside
 * the chunks, read by JSON.parse: V8 parses them as data in about two thirds
 * of the time it compiles the literal. `reverie context` at 10k steps: 11%
 * less CPU and 30 MiB less memory at its peak (bench/cli, measured pairwise).
 */
function ranksAsJson(outdir) {
  return {
    name: "ranks-as-json",
    setup(build) {
      build.onLoad({ filter: /[\\/]gpt-tokenizer[\\/]esm[\\/]bpeRanks[\\/]o200k_base\.js$/ }, async (args) => {
        const { default: ranks } = await import(pathToFileURL(args.path).href);
        // JSON would turn an array's holes into nulls, which the tokenizer reads differently: only a whole array goes this way.
        if (!Array.isArray(ranks) || Object.keys(ranks).length !== ranks.length) return undefined;
        mkdirSync(outdir, { recursive: true });
        writeFileSync(join(outdir, "o200k_base.json"), JSON.stringify(ranks));
        return {
          contents: 'import { readFileSync } from "node:fs";\nexport default JSON.parse(readFileSync(new URL("./o200k_base.json", import.meta.url), "utf8"));\n',
          loader: "js",
        };
      });
    },
  };
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
