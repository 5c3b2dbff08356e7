// An instructions' part rendered from the mind's own file (self/instructions.md
// and the rest, issue 24) names that file and the sha256 of its text as
// recorded. The contexts table keeps both beside the part's hash, through
// keyframes and deltas (a delta whose only change is a new version of a file
// stores its instructions again), so a record read back still has them; rows
// of older builds read back without them. The inspector's token table labels
// such a part by its file and version.
import { createHash } from "node:crypto";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContextParts } from "@/components/inspector/ContextParts";
import { tokenLines, type SeenCall, type SystemPart } from "@/lib/context/replay";
import { MindWriter } from "@/lib/mind/log/mind-log";
import { contextOf, contextsOfRun } from "@/lib/store/derived/contexts";
import type { ContextRow, ReverieDb } from "@/lib/store/db/db";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { openTestDb } from "../../helpers/db";
import { SeenLife, SYSTEM } from "../../helpers/seen-life";
import { id } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";
const RUN = id(0xa0001, "bbbbbbbbbbbb");
const sha = (t: string) => createHash("sha256").update(t).digest("hex");

/** SYSTEM as the mind renders it from its files: persona and how-to-act from theirs (`version` stands for the file's text), the command list and the people generated. */
const fromFiles = (version: string): SystemPart[] =>
  SYSTEM.map((s) => (s.kind === "persona" ? { ...s, file: "persona.md", sha: sha(`persona ${version}`) } : s.kind === "how-to-act" ? { ...s, file: "instructions.md", sha: sha(`instructions ${version}`) } : s));

describe("an instructions' part's file and sha, stored and read back", () => {
  let db: ReverieDb;
  let life: SeenLife;
  const errors: unknown[] = [];

  beforeEach(async () => {
    db = await openTestDb("context-records-self-files");
    life = new SeenLife(MIND, MIND);
    errors.length = 0;
  });
  afterEach(async () => {
    await db.delete();
  });

  const rawRows = async () => (await db.contexts.where("[mind_id+run_id]").equals([MIND, RUN]).toArray()).sort((a, b) => a.iteration - b.iteration);

  it("keyframe and deltas read back with them; a new version of a file alone stores the instructions again", async () => {
    const writer = new MindWriter(indexedDbMindState(db, MIND, { onRecordError: (e) => errors.push(e) }), { onRecordError: (e) => errors.push(e) });
    life.grow(200);
    await db.tiers.bulkAdd(life.seal());
    // Five calls of one run; at the fourth, instructions.md is a new version whose rendered text is the same.
    const calls = [1, 2, 3, 4, 5].map((i) => life.call({ run_id: RUN, iteration: i, system: fromFiles(i >= 4 ? "v2" : "v1") }).call);
    for (const c of calls) writer.record(c);
    await writer.flushed();
    expect(errors).toEqual([]);

    expect(await contextsOfRun(db, MIND, RUN)).toEqual(calls.map((call) => ({ call, missing: [] })));
    for (const call of calls) expect(await contextOf(db, MIND, call.step_id)).toEqual({ call, missing: [] });
    // Read back, not merely equal: the keys are there, and absent where the part had none.
    const fifth = (await contextOf(db, MIND, calls[4]?.step_id as string))?.call;
    expect(fifth?.system.map((s) => [s.kind, s.file, s.sha])).toEqual([
      ["persona", "persona.md", sha("persona v2")],
      ["how-to-act", "instructions.md", sha("instructions v2")],
      ["commands", undefined, undefined],
      ["people", undefined, undefined],
    ]);
    expect(fifth?.system.map((s) => Object.keys(s).sort())).toEqual([
      ["file", "kind", "sha", "text", "tokens"],
      ["file", "kind", "sha", "text", "tokens"],
      ["kind", "text", "tokens"],
      ["kind", "text", "tokens"],
    ]);

    // As stored: the keyframe and the fourth call (its texts the same, its versions not) store the instructions; the others are their base's.
    const rows = await rawRows();
    expect(rows.map((r) => [r.iteration, r.base !== undefined, r.system !== undefined])).toEqual([
      [1, false, true],
      [2, true, false],
      [3, true, false],
      [4, true, true],
      [5, true, false],
    ]);
    expect(rows[3]?.system).toEqual([
      { kind: "persona", hash: sha(SYSTEM[0]?.text ?? ""), tokens: calls[3]?.system[0]?.tokens, file: "persona.md", sha: sha("persona v2") },
      { kind: "how-to-act", hash: sha(SYSTEM[1]?.text ?? ""), tokens: calls[3]?.system[1]?.tokens, file: "instructions.md", sha: sha("instructions v2") },
      { kind: "commands", hash: sha(SYSTEM[2]?.text ?? ""), tokens: calls[3]?.system[2]?.tokens },
      { kind: "people", hash: sha(SYSTEM[3]?.text ?? ""), tokens: calls[3]?.system[3]?.tokens },
    ]);
  });

  it("a row of an older build (no file, no sha) reads back as it was, without them", async () => {
    life.grow(100);
    await db.tiers.bulkAdd(life.seal());
    const old = life.call({ run_id: RUN, iteration: 1 }).call;
    await db.settings.bulkPut(SYSTEM.map((s) => ({ key: `seen-text:${sha(s.text)}`, value: s.text })));
    await db.contexts.put({ ...old, mind_id: MIND, system: old.system.map((s) => ({ kind: s.kind, hash: sha(s.text), tokens: s.tokens })) } satisfies ContextRow);
    const read = await contextOf(db, MIND, old.step_id);
    expect(read).toEqual({ call: old, missing: [] });
    expect(read?.call.system.map((s) => Object.keys(s).sort())).toEqual(SYSTEM.map(() => ["kind", "text", "tokens"]));
  });
});

describe("the inspector's token table names a part's file and version", () => {
  const call: SeenCall = {
    step_id: id(2),
    run_id: RUN,
    traj_id: MIND,
    iteration: 1,
    self_name: "Reverie",
    budget: 0,
    before: 0,
    tokens: 10,
    system: [
      { kind: "persona", text: "I am calm.", file: "persona.md", sha: sha("I am calm."), tokens: 4 },
      { kind: "first-look", text: "Look first.", file: "first-look.md", sha: sha("Look first."), tokens: 3 },
      { kind: "commands", text: "- ls", tokens: 2 },
    ],
    parts: [{ kind: "verbatim", step_ids: [id(1)], tokens: 10 }],
  };

  it("tokenLines: `file · 8 hex` for a part from a file, its kind for one generated", () => {
    expect(tokenLines(call).lines.slice(0, 3)).toEqual([
      { kind: "persona", label: `persona.md · ${sha("I am calm.").slice(0, 8)}`, tokens: 4, file: "persona.md", sha: sha("I am calm.") },
      { kind: "first-look", label: `first-look.md · ${sha("Look first.").slice(0, 8)}`, tokens: 3, file: "first-look.md", sha: sha("Look first.") },
      { kind: "commands", label: "commands", tokens: 2 },
    ]);
  });

  it("ContextParts: data-file and data-sha on the row, the file and 8 hex shown; the first look keeps its own name", () => {
    const { lines, total } = tokenLines(call);
    const out = renderToStaticMarkup(<ContextParts lines={lines} total={total} budget={0} onShowStep={() => undefined} />);
    const rows = [...out.matchAll(/<tr data-testid="context-part" ([^>]*)><td[^>]*>(.*?)<\/td>/g)].map((m) => [m[1]?.replace(/ class="[^"]*"/, ""), m[2]?.replace(/<[^>]*>/g, "").replace(/&#x27;/g, "'")]);
    expect(rows).toEqual([
      [`data-kind="persona" data-tokens="4" data-file="persona.md" data-sha="${sha("I am calm.")}"`, `persona.md · ${sha("I am calm.").slice(0, 8)}`],
      [`data-kind="first-look" data-tokens="3" data-file="first-look.md" data-sha="${sha("Look first.")}"`, `first look (an idle wake's lean instructions; its next call has the full ones) · first-look.md · ${sha("Look first.").slice(0, 8)}`],
      [`data-kind="commands" data-tokens="2"`, "commands"],
      [`data-kind="verbatim" data-tokens="10"`, "verbatim (1 step)"],
      [`data-kind="framing" data-tokens="4"`, "message framing"],
    ]);
    expect(out.match(/data-testid="context-part-file"/g)).toHaveLength(2);
  });
});
