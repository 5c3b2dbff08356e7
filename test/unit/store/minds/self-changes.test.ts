// The owner's changes to a mind's own texts (lib/shell/self/change.ts) and
// how a stopped mind's browser makes them (lib/store/minds/self-changes.ts):
// worked out against the text as recorded, refused with a reason when they
// cannot be made, and written with their self-edit step in one transaction.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planSelfChange, type SelfChange, type SelfEdit } from "@/lib/shell/self/change";
import { selfEditStep, sha256 } from "@/lib/shell/self/edit";
import type { ReverieDb } from "@/lib/store/db/db";
import { filesWithin } from "@/lib/store/minds/files";
import { createMind, setRunning } from "@/lib/store/minds/minds";
import { changeSelf, queuedSelfChanges, saveFromFiles } from "@/lib/store/minds/self-changes";
import { appendStep, tailSteps } from "@/lib/store/steps/steps";
import { stampStep, type SelfEditBy } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const T0 = Date.parse("2026-12-05T06:00:00Z");
const FIRST: SelfEditBy = { kind: "harness", why: "first-start" };

async function edit(n: number, path: string, before: string | null, after: string | null, by: SelfEditBy = { kind: "mind", run: id(90), traj: id(91) }): Promise<SelfEdit> {
  return stampStep({ ...(await selfEditStep(path, before, after, by)), step_id: id(n) }, { id: id(n), now: T0 }) as SelfEdit;
}

describe("planSelfChange", () => {
  const texts: Record<string, string> = { "instructions.md": "one\ntwo\nthree\n", "persona.md": "calm" };
  const current = (f: string) => texts[f] ?? null;

  it("a write becomes a self-edit by the person, under the request's id", async () => {
    const c: SelfChange = { op: "write", id: id(1), file: "persona.md", text: "bold", base: await sha256("calm"), by: "Ada", via: "settings" };
    const plan = await planSelfChange(c, current, async () => undefined);
    expect(plan).toEqual({
      file: "persona.md",
      text: "bold",
      step: {
        type: "self-edit",
        step_id: id(1),
        path: "self/persona.md",
        before: await sha256("calm"),
        after: await sha256("bold"),
        diff: "--- a/self/persona.md\n+++ b/self/persona.md\n@@ -1,1 +1,1 @@\n-calm\n\\ No newline at end of file\n+bold\n\\ No newline at end of file\n",
        by: { kind: "human", name: "Ada", via: "settings" },
        content: "Ada changed your self/persona.md (+1 −1) in Settings.",
        source: "system",
      },
    });
  });

  it("refuses a write made from a text that has changed since, or that changes nothing", async () => {
    const stale = await planSelfChange({ op: "write", id: id(1), file: "persona.md", text: "bold", base: await sha256("old"), by: "Ada", via: "settings" }, current, async () => undefined);
    expect(stale).toEqual({ refused: { type: "error", reason: "self-edit-refused", source: "system", step_id: id(1), content: "Ada's change to self/persona.md was not made: the text changed since it was opened (the mind or another page changed it). Open it again to see the new text." } });
    const same = await planSelfChange({ op: "write", id: id(2), file: "persona.md", text: "calm", by: "", via: "files" }, current, async () => undefined);
    expect("refused" in same && same.refused.content).toBe("Your owner's change to self/persona.md was not made: it is the text the file holds already.");
  });

  it("a revert takes an edit's lines back out of the text as it is now, even after later edits elsewhere in it", async () => {
    const e = await edit(5, "self/instructions.md", "one\nthree\n", "one\ntwo\nthree\n");
    const now = { "instructions.md": "zero\none\ntwo\nthree\nfour\n" } as Record<string, string>;
    const plan = await planSelfChange({ op: "revert", id: id(6), of: id(5), by: "Ada" }, (f) => now[f] ?? null, async (x) => (x === id(5) ? e : undefined));
    expect("step" in plan && [plan.text, plan.step.by, plan.step.content]).toEqual(["zero\none\nthree\nfour\n", { kind: "revert", of: id(5), name: "Ada" }, "Ada reverted 00000000: changed self/instructions.md (+0 −1)."]);
  });

  it("refuses a revert it cannot make, and says why", async () => {
    const first = await edit(5, "self/instructions.md", null, "one\ntwo\nthree\n", FIRST);
    const later = await edit(6, "self/instructions.md", "one\nthree\n", "one\ntwo\nthree\n");
    const find = async (x: string) => [first, later].find((e) => e.step_id === x);
    const why = async (c: SelfChange, t = current) => {
      const plan = await planSelfChange(c, t, find);
      return "refused" in plan ? plan.refused.content : "made";
    };
    expect(await why({ op: "revert", id: id(7), of: id(5), by: "Ada" })).toBe("Ada's revert of 00000000 was not made: it is where self/instructions.md began, and the mind keeps its texts (change the text instead).");
    expect(await why({ op: "revert", id: id(7), of: id(9), by: "Ada" })).toBe("Ada's revert was not made: there is no change 00000000 to the mind's texts.");
    expect(await why({ op: "revert", id: id(7), of: id(6), by: "Ada" }, (f) => (f === "instructions.md" ? "one\nTWO\nthree\n" : null))).toBe("Ada's revert of 00000000 was not made: self/instructions.md changed since in the same lines; revert the later changes first.");
    // Reverted already: its lines are not there to take out.
    expect(await why({ op: "revert", id: id(7), of: id(6), by: "Ada" }, (f) => (f === "instructions.md" ? "one\nthree\n" : null))).toBe("Ada's revert of 00000000 was not made: self/instructions.md changed since in the same lines; revert the later changes first.");
  });
});

describe("changeSelf in the browser", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("self-change-test");
  });
  afterEach(async () => {
    await db.delete();
  });

  async function stoppedMind() {
    const mind = await createMind(db, { name: "Sol", persona: "calm", model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m" } }, T0);
    await setRunning(db, mind.id, false);
    await db.files.bulkPut([
      { mind_id: mind.id, path: "/workspace/self", kind: "dir", mode: 0o755, mtime: T0 },
      { mind_id: mind.id, path: "/workspace/self/persona.md", kind: "file", data: new TextEncoder().encode("calm"), mode: 0o600, mtime: T0 },
    ] as never);
    await appendStep(db, mind.id, await edit(5, "self/persona.md", null, "calm", FIRST));
    return mind.id;
  }
  const rows = async (mindId: string) => Object.fromEntries((await filesWithin(db, mindId, "/workspace/self")).map((r) => [r.path, r.kind === "file" ? [new TextDecoder().decode(r.data), r.mode, r.mtime] : r.kind]));

  it("a stopped mind: the file and its step in one go; the same request again changes nothing more", async () => {
    const mindId = await stoppedMind();
    const c: SelfChange = { op: "write", id: id(1), file: "persona.md", text: "bold", base: await sha256("calm"), by: "Ada", via: "files" };
    const done = await changeSelf(db, mindId, c, T0 + 1000);
    expect("step" in done && [done.step.type, done.step.step_id, done.step.ts]).toEqual(["self-edit", id(1), "2026-12-05T06:00:01.000Z"]);
    expect(await rows(mindId)).toEqual({ "/workspace/self": "dir", "/workspace/self/persona.md": ["bold", 0o600, T0 + 1000] });
    expect(await changeSelf(db, mindId, c, T0 + 2000)).toEqual(done);
    expect((await tailSteps(db, mindId, 50)).filter((s) => s.type === "self-edit").map((s) => s.step_id)).toEqual([id(5), id(1)]);

    const revert = await changeSelf(db, mindId, { op: "revert", id: id(2), of: id(1), by: "Ada" }, T0 + 3000);
    expect("step" in revert && revert.step.type).toBe("self-edit");
    expect((await rows(mindId))["/workspace/self/persona.md"]?.[0]).toBe("calm");
  });

  it("a refused change writes nothing but the error step that says why", async () => {
    const mindId = await stoppedMind();
    const done = await changeSelf(db, mindId, { op: "write", id: id(1), file: "persona.md", text: "bold", base: await sha256("stale"), by: "Ada", via: "settings" }, T0);
    expect("step" in done && [done.step.type, (done.step as { reason?: string }).reason]).toEqual(["error", "self-edit-refused"]);
    expect((await rows(mindId))["/workspace/self/persona.md"]?.[0]).toBe("calm");
  });

  it("a running mind: the change waits for its worker", async () => {
    const mindId = await stoppedMind();
    await setRunning(db, mindId, true);
    const c: SelfChange = { op: "write", id: id(1), file: "persona.md", text: "bold", by: "Ada", via: "settings" };
    expect(await changeSelf(db, mindId, c)).toEqual({ queued: true });
    expect(await changeSelf(db, mindId, c)).toEqual({ queued: true });
    expect(await queuedSelfChanges(db, mindId)).toEqual([c]);
    expect((await rows(mindId))["/workspace/self/persona.md"]?.[0]).toBe("calm");
  });

  it("Files: a text of the mind's is a change to its texts; another file under self/ is refused; any other file is saved as ever", async () => {
    const mindId = await stoppedMind();
    await saveFromFiles(db, mindId, "/workspace/self/persona.md", "bold", "Ada", T0 + 1000);
    const edits = (await tailSteps(db, mindId, 50)).filter((x) => x.type === "self-edit");
    expect(edits.map((e) => [e.content, (e as SelfEdit).by])).toEqual([
      ["My own texts begin: created self/persona.md (1 line), as my harness wrote it at my first start.", FIRST],
      ["Ada changed your self/persona.md (+1 −1) in Files.", { kind: "human", name: "Ada", via: "files" }],
    ]);
    await expect(saveFromFiles(db, mindId, "/workspace/self/persona.md", "bold", "Ada")).rejects.toThrow("Ada's change to self/persona.md was not made: it is the text the file holds already.");
    await expect(saveFromFiles(db, mindId, "/workspace/self/extra.md", "x", "Ada")).rejects.toThrow("/workspace/self/ holds the mind's own texts (persona.md, instructions.md, first-look.md, responder.md, summarizer.md) and its watchers; a new file there is not one of them.");
    await db.files.put({ mind_id: mindId, path: "/workspace", kind: "dir", mode: 0o755, mtime: T0 } as never);
    await saveFromFiles(db, mindId, "/workspace/notes.md", "n", "Ada");
    expect((await filesWithin(db, mindId, "/workspace")).map((r) => r.path)).toContain("/workspace/notes.md");
  });
});
