// Node under tsx imports lib/mind's default texts (.md) only with
// bin/text-imports.mjs imported first. Every entry in bin/, bench/ and
// scripts/ that starts tsx (`--import tsx`, `import.meta.resolve("tsx")`) or
// calls tsImport must import it before; and it works, in a child Node, for
// both ways tsx runs the sources.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = resolve(__dirname, "../../..");
const HOOK = "text-imports.mjs";

/** Where a file starts tsx without the hook first: `path:line: what`, one an entry. */
function forgotten(path: string, text: string): string[] {
  const out: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    for (const tsx of ['import.meta.resolve("tsx")', "--import tsx"]) {
      const at = line.indexOf(tsx);
      if (at >= 0 && !line.slice(0, at).includes(HOOK)) out.push(`${path}:${i + 1}: ${tsx} without ${HOOK} before it`);
    }
  });
  const api = text.indexOf('"tsx/esm/api"');
  const hook = text.indexOf(`import "../bin/${HOOK}";`);
  if (api >= 0 && (hook < 0 || hook > api)) out.push(`${path}: tsx/esm/api without import "../bin/${HOOK}" before it`);
  return out;
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "results" && entry.name !== "node_modules") yield* sources(p);
    } else if (/\.(mjs|js|mts|ts)$/.test(entry.name)) yield p;
  }
}

describe("the text-imports hook before tsx", () => {
  it("finds an entry that forgets it, and passes one that has it", () => {
    const bad = ['import { tsImport } from "tsx/esm/api";', 'spawn(process.execPath, ["--import", import.meta.resolve("tsx"), main]);', "// `node --import tsx x.mjs`"].join("\n");
    expect(forgotten("bench/x.mjs", bad)).toEqual([
      'bench/x.mjs:2: import.meta.resolve("tsx") without text-imports.mjs before it',
      "bench/x.mjs:3: --import tsx without text-imports.mjs before it",
      'bench/x.mjs: tsx/esm/api without import "../bin/text-imports.mjs" before it',
    ]);
    const good = ['import "../bin/text-imports.mjs";', 'import { tsImport } from "tsx/esm/api";', 'spawn(process.execPath, ["--import", fileURLToPath(new URL("./text-imports.mjs", import.meta.url)), "--import", import.meta.resolve("tsx"), main]);', "// `node --import ./bin/text-imports.mjs --import tsx x.mjs`"].join("\n");
    expect(forgotten("bench/y.mjs", good)).toEqual([]);
  });

  it("is imported by every tsx entry in bin/, bench/ and scripts/", () => {
    const files = ["bin", "bench", "scripts"].flatMap((d) => [...sources(join(REPO, d))]);
    const entries = files.filter((f) => /import\.meta\.resolve\("tsx"\)|--import tsx|"tsx\/esm\/api"/.test(readFileSync(f, "utf8"))).map((f) => relative(REPO, f));
    // The entries the hook was added to when it came (more may come; none may lack it).
    expect(entries).toEqual(expect.arrayContaining(["bin/reverie.mjs", "scripts/start.mjs", "bench/context.bench.mjs", "bench/cli.bench.mjs", "bench/mind-node.mjs", "bench/runner-handover.mjs", "bench/runner-idle.mjs", "bench/runner-driver.mjs"]));
    expect(files.flatMap((f) => forgotten(relative(REPO, f), readFileSync(f, "utf8")))).toEqual([]);
  });

  const node = (args: string[]) =>
    new Promise<{ code: number; out: string }>((done) => {
      execFile(process.execPath, args, { cwd: REPO }, (error, stdout, stderr) => done({ code: error ? Number(error.code ?? -1) : 0, out: `${stdout}${stderr}` }));
    });
  const expected = JSON.stringify(readFileSync(join(REPO, "lib/mind/self/defaults/instructions.md"), "utf8"));

  it("gives Node under tsx the file's text, by --import tsx and by tsImport", async () => {
    const cjs = await node(["--import", `./bin/${HOOK}`, "--import", "tsx", "-e", 'import("./lib/mind/self/defaults/index.ts").then((m) => console.log(JSON.stringify((m.SELF_DEFAULTS ?? m.default.SELF_DEFAULTS).instructions)))']);
    const api = await node(["--input-type=module", "-e", `import "./bin/${HOOK}"; const { tsImport } = await import("tsx/esm/api"); const m = await tsImport("./lib/mind/self/defaults/index.ts", "${pathToFileURL(join(REPO, "x.mjs")).href}"); console.log(JSON.stringify(m.SELF_DEFAULTS.instructions));`]);
    expect([cjs, api]).toEqual([
      { code: 0, out: `${expected}\n` },
      { code: 0, out: `${expected}\n` },
    ]);
  });
});
