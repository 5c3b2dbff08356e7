// `reverie context` as the binary runs it: from the script beside the bundle
// (cli/context-main.ts, bundled as context.cjs) compiled from V8's code cache,
// which it writes after a run that had none; what the script does not read
// (an archive) it leaves to the whole bundle. Each run goes to a copy of the
// bundle, so what these tests find beside it is their own runs' doing.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "@/cli/reverie";
import { makeHeadlongTree } from "../../fixtures/headlong-tree";
import { BIN, bundleEntry } from "../helpers/cli-bin";
import { pack } from "../helpers/trees";

const dir = mkdtempSync(join(tmpdir(), "reverie-context-script-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TREE = makeHeadlongTree({ steps: 300 });
const rootFile = TREE.files.find((f) => f.path.endsWith("trajectory.jsonl"))!;
let bundle = "";
let cache = "";
let jsonl = "";
let tarGz = "";

beforeAll(async () => {
  const entry = await bundleEntry();
  bundle = join(dir, "bundle");
  cpSync(dirname(fileURLToPath(entry)), bundle, { recursive: true });
  cache = join(bundle, "context.cjs.cache");
  rmSync(cache, { force: true });
  jsonl = join(dir, "trajectory.jsonl");
  writeFileSync(jsonl, rootFile.data);
  tarGz = join(dir, "tree.tar.gz");
  writeFileSync(tarGz, new Uint8Array(await (await pack(TREE.files, "tar.gz")).arrayBuffer()));
}, 120_000);

/** The binary over the copy of the bundle. */
function runBin(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, REVERIE_CLI_BUNDLE: pathToFileURL(join(bundle, "reverie.mjs")).href } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The same command in this process, through the whole bundle's main. */
async function inProcess(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

describe("reverie context from its script", () => {
  it("a trajectory.jsonl: the script prints what the bundle prints, and leaves its code cache beside it", async () => {
    expect(existsSync(cache)).toBe(false);
    expect(runBin("context", jsonl, "--json")).toEqual(await inProcess("context", jsonl, "--json"));
    expect(existsSync(cache)).toBe(true);
  }, 60_000);

  it("with the cache: the same output, and the cache is kept as it is", async () => {
    const before = statSync(cache).mtimeMs;
    expect(runBin("context", jsonl)).toEqual(await inProcess("context", jsonl));
    expect(statSync(cache).mtimeMs).toBe(before);
  }, 60_000);

  it("a cache V8 refuses (not one): the same output, and a new cache in its place", async () => {
    writeFileSync(cache, "not a code cache");
    expect(runBin("context", jsonl, "--budget", "2000")).toEqual(await inProcess("context", jsonl, "--budget", "2000"));
    expect(readFileSync(cache, "utf8")).not.toBe("not a code cache");
  }, 60_000);

  it("an archive is left to the whole bundle: the same output, and no cache written by the script", async () => {
    rmSync(cache);
    expect(runBin("context", tarGz)).toEqual(await inProcess("context", tarGz));
    expect(existsSync(cache)).toBe(false);
  }, 60_000);

  it("a missing file and bad arguments are worded by the whole bundle, as ever", async () => {
    const missing = join(dir, "nope.jsonl");
    expect(runBin("context", missing)).toEqual(await inProcess("context", missing));
    expect(runBin("context", jsonl, "--budget", "0")).toEqual(await inProcess("context", jsonl, "--budget", "0"));
    expect(existsSync(cache)).toBe(false);
  }, 60_000);
});
