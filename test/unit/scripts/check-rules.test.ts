// The rules `npm run check` holds, shown failing: scripts/check-layers.mjs and
// dependency-cruiser (.dependency-cruiser.mjs) run, as the check runs them, on
// small trees written to a temporary folder, and their whole output is compared.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const REPO = resolve(__dirname, "../../..");
const LAYERS = join(REPO, "scripts/check-layers.mjs");
const DEPCRUISE = join(REPO, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const CONFIG = join(REPO, ".dependency-cruiser.mjs");

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A tree with the check's top folders (depcruise refuses a folder that is not there), then `files`. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "check-rules-"));
  dirs.push(root);
  for (const top of ["app", "components", "workers", "lib", "cli"]) mkdirSync(join(root, top));
  // The repository's path alias, as tsconfig.json declares it.
  files = { "tsconfig.json": JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", paths: { "@/*": ["./*"] } } }), ...files };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Exit code and every line printed (stdout, then stderr), blank lines dropped. */
function run(cwd: string, args: string[]): Promise<{ code: number; lines: string[] }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.FORCE_COLOR;
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      done({ code, lines: `${stdout}\n${stderr}`.split("\n").filter((l) => l.trim() !== "") });
    });
  });
}

const layers = (cwd: string) => run(cwd, [LAYERS]);
const cycles = (cwd: string) => run(cwd, [DEPCRUISE, "app", "components", "workers", "lib", "cli", "--config", CONFIG]);

describe("layer rules (scripts/check-layers.mjs)", () => {
  it("passes components that reach the store through its hooks or import only its types, and a cli that imports lib/, node: and packages", async () => {
    const root = tree({
      "components/home/Home.tsx": [
        'import { useMinds } from "@/lib/store/view/hooks";',
        'import { useMindActions } from "../../lib/store/view/hooks-settings";',
        'import type { Mind } from "@/lib/store/minds/minds";',
        'import { type ReverieDb, type UsageRow } from "@/lib/store/db/db";',
        'export type { ConfigStep } from "@/lib/store/steps/config-steps";',
        "",
      ].join("\n"),
      "cli/reverie.ts": ['import { readFile } from "node:fs/promises";', 'import { encode } from "gpt-tokenizer";', 'import { parseStep } from "../lib/trajectory/schema";', 'import { out } from "./out";', ""].join("\n"),
    });
    expect(await layers(root)).toEqual({ code: 0, lines: ["layers: ok"] });
  });

  it("fails a component that imports a store writer, db, or a type beside a value", async () => {
    const root = tree({
      "components/settings/PricesEditor.tsx": ['import { setPriceTable } from "@/lib/store/minds/prices";', 'import { db, type ReverieDb } from "../../lib/store/db/db";', ""].join("\n"),
    });
    expect(await layers(root)).toEqual({
      code: 1,
      lines: [
        "Layer rules broken (2):",
        "  components/settings/PricesEditor.tsx:1: components reach lib/store through its hooks (lib/store/view/hooks*), not lib/store/minds/prices (import type is fine)",
        "  components/settings/PricesEditor.tsx:2: components reach lib/store through its hooks (lib/store/view/hooks*), not lib/store/db/db (import type is fine)",
      ],
    });
  });

  it("fails a cli file that imports components/ or app/, lib/ that imports cli/, and a component that imports cli/", async () => {
    const root = tree({
      "cli/render.ts": ['import { Home } from "../components/home/Home";', 'import type { Props } from "@/app/page";', ""].join("\n"),
      "lib/mind/loop.ts": 'import { out } from "../../cli/out";\n',
      "components/Help.tsx": 'import { usage } from "@/cli/usage";\n',
    });
    expect(await layers(root)).toEqual({
      code: 1,
      lines: [
        "Layer rules broken (5):",
        "  components/Help.tsx:1: app/ and components/ never import cli/ (the command line's edge)",
        "  lib/mind/loop.ts:1: lib/ must not import cli/out (lib never imports app/, components/, workers/ or cli/)",
        "  lib/mind/loop.ts:1: pure layer imports cli/out; pure layers import only each other and lib/protocol",
        "  cli/render.ts:1: cli/ imports lib/ only, not components/home/Home",
        "  cli/render.ts:2: cli/ imports lib/ only, not app/page",
      ],
    });
  });

  it("checks a #name of package.json's imports as the file Node gets: a pure module may import one of lib/context, not one of lib/server", async () => {
    const imports = { "#count": { browser: "./lib/context/count-browser.ts", default: "./lib/context/count.ts" }, "#db": "./lib/server/db.ts" };
    const root = tree({
      "package.json": JSON.stringify({ name: "t", imports }),
      "lib/context/tokens.ts": 'import { count } from "#count";\nimport { db } from "#db";\n',
    });
    expect(await layers(root)).toEqual({
      code: 1,
      lines: [
        "Layer rules broken (2):",
        "  lib/context/tokens.ts:2: pure layer imports lib/server/db; pure layers import only each other and lib/protocol",
        "  lib/context/tokens.ts:2: lib/server is server-only: import it from app/ route handlers only",
      ],
    });
  });
});

// Each starts the CLI as `npm run check` does (about 1.5 s of CPU, most of it loading TypeScript): the two run side by side.
describe.concurrent("no import cycles (dependency-cruiser, .dependency-cruiser.mjs)", { timeout: 30_000 }, () => {
  it("fails two modules that import each other, and a cycle of type-only imports too", async ({ expect }) => {
    const root = tree({
      "lib/mind/run/run.ts": 'import { nested } from "./nested";\nexport const run = () => nested();\n',
      "lib/mind/run/nested.ts": 'import { run } from "@/lib/mind/run/run";\nexport const nested = () => run;\n',
      "lib/server/db/sql.ts": 'import { migrate } from "./migrations";\nexport interface Sql { query(): void }\nexport const open = migrate;\n',
      "lib/server/db/migrations.ts": 'import type { Sql } from "./sql";\nexport const migrate = (sql: Sql) => sql.query();\n',
      "components/Page.tsx": 'import { run } from "@/lib/mind/run/run";\nexport const Page = run;\n',
    });
    expect(await cycles(root)).toEqual({
      code: 2,
      lines: [
        "  error no-circular: lib/server/db/migrations.ts → ",
        "      lib/server/db/sql.ts →",
        "      lib/server/db/migrations.ts",
        "  error no-circular: lib/mind/run/nested.ts → ",
        "      lib/mind/run/run.ts →",
        "      lib/mind/run/nested.ts",
        "x 2 dependency violations (2 errors, 0 warnings). 5 modules, 5 dependencies cruised.",
      ],
    });
  });

  it("passes the same modules once the shared declaration has a module of its own and the run is handed in", async ({ expect }) => {
    const root = tree({
      "lib/mind/run/run.ts": 'import { nested } from "./nested";\nexport const run = (): unknown => nested(run);\n',
      "lib/mind/run/nested.ts": "export const nested = (run: () => unknown) => run;\n",
      "lib/server/db/types.ts": "export interface Sql { query(): void }\n",
      "lib/server/db/sql.ts": 'import { migrate } from "./migrations";\nexport type { Sql } from "./types";\nexport const open = migrate;\n',
      "lib/server/db/migrations.ts": 'import type { Sql } from "./types";\nexport const migrate = (sql: Sql) => sql.query();\n',
    });
    expect(await cycles(root)).toEqual({ code: 0, lines: ["✔ no dependency violations found (5 modules, 4 dependencies cruised)"] });
  });
});
