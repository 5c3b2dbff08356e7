// Two rules scripts/check-layers.mjs holds beside the imports (issue 36): no
// product file over 400 lines, and at most five `as` casts in the pure
// layers, counted by the TypeScript parser. Run as `npm run check` runs it,
// on small trees in a temporary folder; its whole output is compared.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, it } from "vitest";

const LAYERS = resolve(__dirname, "../../../scripts/check-layers.mjs");

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "check-layers-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Exit code and every line printed (stdout, then stderr), blank lines dropped. */
function layers(cwd: string): Promise<{ code: number; lines: string[] }> {
  return new Promise((done) => {
    execFile(process.execPath, [LAYERS], { cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      done({ code, lines: `${stdout}\n${stderr}`.split("\n").filter((l) => l.trim() !== "") });
    });
  });
}

/** A module of `n` lines, each its own statement, ending with a newline as an editor saves it. */
const linesOf = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};\n`).join("");

// Each run is a node process (and the second rule loads the compiler): seconds on a busy machine.
describe.concurrent("no product file over 400 lines", { timeout: 30_000 }, () => {
  it("fails a file in lib/ and a component past 400 lines, naming the line past the limit and the count", async ({ expect }) => {
    const root = tree({
      "lib/sync/wire.ts": linesOf(570),
      "components/Big.tsx": linesOf(400) + "export const last = 1;",
      "lib/ok.ts": linesOf(12),
    });
    expect(await layers(root)).toEqual({
      code: 1,
      lines: [
        "Layer rules broken (2):",
        "  components/Big.tsx:401: 401 lines; a product file stays within 400 (split it by responsibility)",
        "  lib/sync/wire.ts:401: 570 lines; a product file stays within 400 (split it by responsibility)",
      ],
    });
  });

  it("passes 400 lines exactly, in every product folder and kind of file, and any length outside them", async ({ expect }) => {
    const root = tree({
      "app/page.tsx": linesOf(400),
      "components/List.tsx": linesOf(400),
      "workers/mind.worker.ts": linesOf(400),
      "lib/server/db/migrations.ts": 'import "server-only";\n' + linesOf(399),
      "cli/reverie.mjs": linesOf(400),
      "lib/data.js": linesOf(399) + "export const end = 0;",
      "test/unit/long.test.ts": linesOf(2000),
      "bench/long.bench.mjs": linesOf(900),
    });
    expect(await layers(root)).toEqual({ code: 0, lines: ["layers: ok"] });
  });
});

describe.concurrent("at most five `as` casts in the pure layers", { timeout: 30_000 }, () => {
  const fiveCasts = {
    "lib/trajectory/schema.ts": ["export const a = (v: unknown) => v as string;", "export const kinds = ['a', 'b'] as const;", ""].join("\n"),
    "lib/context/bpe.ts": ["export const b = (t: number[], i: number) => t[i] as number;", "export const c = (v: unknown) => <number>v;", ""].join("\n"),
    "lib/mind/self/trial.ts": [
      "// Not a cast: `x as Step` in a comment, nor in a string.",
      'export const said = "value as Step";',
      "export const d = (v: unknown) => (v as { reason?: string }).reason;",
      "export const e = (v: unknown) =>",
      "  v as {",
      "    a: number;",
      "  };",
      "export const f = { x: 1 } as const satisfies { x: number };",
      "",
    ].join("\n"),
    // Outside the pure layers casts are not counted here.
    "lib/llm/chat.ts": "export const g = (v: unknown) => v as string;\nexport const h = (v: unknown) => v as number;\n",
  };

  it("passes five, with `as const`, `satisfies` and casts in comments and strings not counted", async ({ expect }) => {
    expect(await layers(tree(fiveCasts))).toEqual({ code: 0, lines: ["layers: ok"] });
  });

  it("fails a sixth, in lib/onboarding, printing every cast it found", async ({ expect }) => {
    const root = tree({ ...fiveCasts, "lib/onboarding/forecast.tsx": "export const Row = (p: unknown) => <div>{p as string}</div>;\n" });
    expect(await layers(root)).toEqual({
      code: 1,
      lines: [
        "Layer rules broken (6):",
        "  lib/context/bpe.ts:1: `t[i] as number`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
        "  lib/context/bpe.ts:2: `<number>v`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
        "  lib/mind/self/trial.ts:3: `v as { reason?: string }`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
        "  lib/mind/self/trial.ts:5: `v as { a: number; }`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
        "  lib/onboarding/forecast.tsx:1: `p as string`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
        "  lib/trajectory/schema.ts:1: `v as string`: the pure layers hold 6 `as` casts, at most 5 (parse with a schema or narrow instead)",
      ],
    });
  });
});
