// scripts/check-writers.mjs (run by `npm run check`): who may write a mind's
// steps, and where its settings schema comes from, shown failing and passing
// on small trees written to a temporary folder, whole output compared.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = join(resolve(__dirname, "../../.."), "scripts/check-writers.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "check-writers-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string): Promise<{ code: number; lines: string[] }> {
  return new Promise((done) => {
    execFile(process.execPath, [SCRIPT, root], (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      done({ code, lines: `${stdout}${stderr}`.split("\n").filter((l) => l.trim()) });
    });
  });
}

/** Where each writer may stand: the store's one writer, the port's implementations, the mind's writer, sync's SQL writer. */
const GOOD = {
  "lib/store/steps/steps.ts": 'export async function appendStep(db, mindId, step) { return db.steps.add(row(step)); }\n',
  "lib/store/state/mind-state.ts": 'await writeRows(db, [{ table: "steps", op: "add", rows }]);\n',
  "lib/store/minds/minds.ts": 'import { appendStep } from "../steps/steps";\nimport { MindSettings } from "../../mind/settings/settings";\n',
  "lib/mind/log/mind-log.ts": "await this.state.append({ steps, seen });\n",
  "lib/server/state/inbound.ts": "await o.append({ steps: batch, seen: [] });\n",
  "lib/server/sync/steps.ts": 'await tx.query(`INSERT INTO sync_steps (mind, seq) VALUES ${values}`, params);\n',
  "lib/mind/settings/settings.ts": "export const MindSettings = z.object({});\n",
  "lib/home/start.ts": 'import type { MindSettings } from "../mind/settings/settings";\nawait journal.append(step);\n',
  "lib/server/sync/forget.ts": 'const FORGET_SETTING = "reverie.forget_mind";\nfor (const t of MIND_TABLES) await tx.query(`DELETE FROM ${t} WHERE mind = $1`, [mind]);\n',
  "lib/server/db/migrations.ts": "`IF current_setting('reverie.forget_mind', true) = OLD.mind THEN RETURN OLD; END IF;`\n",
};

describe("writer rules (scripts/check-writers.mjs)", () => {
  it("passes a tree where each writer stands where it may", async () => {
    expect(await check(tree(GOOD))).toEqual({ code: 0, lines: ["writers: ok"] });
  });

  it("fails every writer of a mind's steps that goes around its one door, and the settings schema taken from lib/store", async () => {
    const root = tree({
      ...GOOD,
      "lib/store/sync/pull.ts": "await db.steps.bulkAdd(rows);\n",
      "lib/server/runner/hosted.ts": 'await tx.query("INSERT INTO sync_steps (mind, seq) VALUES ($1, $2)", [m, s]);\nawait state.append({ steps: [{ trajId, step }], seen: [] });\n',
      "workers/host.ts": 'import { appendStep, lastSeq } from "../lib/store/steps/steps";\n',
      "lib/eval/play.ts": 'import { configStep, MindSettings } from "../store/minds/mind-record";\n',
      "lib/store/minds/record.ts": "export const Mind = MindSettings;\n",
    });
    expect(await check(root)).toEqual({
      code: 1,
      lines: [
        "Writer rules broken (6):",
        "  lib/eval/play.ts:1: imports the mind's settings schema from lib/store: it is lib/mind/settings/settings.ts's",
        "  lib/server/runner/hosted.ts:1: writes sync_steps: only sync's one SQL writer (lib/server/sync/steps.ts) does",
        "  lib/server/runner/hosted.ts:2: appends a batch to a mind's state around its writer: only the mind's writer (lib/mind/log/mind-log.ts) and the port's implementations do",
        "  lib/store/minds/record.ts:1: hands on the mind's settings schema from lib/store: import it from lib/mind/settings/settings.ts",
        "  lib/store/sync/pull.ts:1: writes IndexedDB's steps table: only the store's one writer (lib/store/steps/steps.ts) and the state port (lib/store/state/) do",
        "  workers/host.ts:1: uses the page's step writer (appendStep): a home, worker or server appends through the mind's state port",
      ],
    });
  });

  it("fails every change or delete of a stored step on the server, and the trigger's way past named outside forgetting a mind", async () => {
    const root = tree({
      ...GOOD,
      "lib/server/sync/prune.ts": 'await sql.query("DELETE FROM sync_steps WHERE mind = $1", [m]);\nawait sql.query(`UPDATE  sync_steps SET json = $2`);\nawait sql.exec("truncate table sync_steps");\n',
      // Where a whole mind is forgotten, its steps may be deleted.
      "lib/server/sync/forget.ts": 'await tx.query("DELETE FROM sync_steps WHERE mind = $1", [mind]);\n',
      "lib/server/runner/hosted.ts": 'await tx.query("SELECT set_config(\'reverie.forget_mind\', $1, true)", [m]);\n',
    });
    expect(await check(root)).toEqual({
      code: 1,
      lines: [
        "Writer rules broken (4):",
        "  lib/server/runner/hosted.ts:1: names sync_steps' way past its append-only trigger: only forgetting a whole mind (lib/server/sync/forget.ts) sets it",
        "  lib/server/sync/prune.ts:1: changes or deletes stored steps: sync_steps is append-only (its trigger refuses it); only forgetting a whole mind (lib/server/sync/forget.ts) removes them",
        "  lib/server/sync/prune.ts:2: changes or deletes stored steps: sync_steps is append-only (its trigger refuses it); only forgetting a whole mind (lib/server/sync/forget.ts) removes them",
        "  lib/server/sync/prune.ts:3: changes or deletes stored steps: sync_steps is append-only (its trigger refuses it); only forgetting a whole mind (lib/server/sync/forget.ts) removes them",
      ],
    });
  });
});
