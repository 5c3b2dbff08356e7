// People's changes to a mind's memory as this browser makes them
// (lib/store/minds/curations.ts): at once on a stopped mind's saved rows, in
// one transaction with their step; queued for a running mind's worker, which
// makes them in its sandbox (the persistent filesystem it saves from) and
// writes the step; each once, whoever asks again.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyCuration, sandboxCurationFs, type Curation } from "@/lib/shell/curation";
import { openPersistentFs } from "@/lib/shell/persistent-fs";
import type { ReverieDb } from "@/lib/store/db/db";
import { curate, curationStep, drainCurationQueue, queuedCurations, serveCurationQueue } from "@/lib/store/minds/curations";
import { mindFiles } from "@/lib/store/minds/files";
import { readMindNotes } from "@/lib/store/minds/memory";
import { createMind, setRunning } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { openTestDb } from "../../helpers/db";
import { indexedDbMindState } from "@/lib/store/state/mind-state";

const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1" };
const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);
const ids = { uuid: () => "12345678-0000-4000-8000-00000000abcd" };
let n = 0;
const change = (c: Omit<Curation, "id" | "by" | "role">): Curation => ({ ...c, id: `c0ffee0${++n}-0000-4000-8000-000000000000`, by: "Ada", role: "owner" }) as Curation;

describe("people's changes to a mind's memory, in this browser", () => {
  let db: ReverieDb;
  let mindId: string;
  beforeEach(async () => {
    db = await openTestDb("curation-store-test");
    mindId = (await createMind(db, { name: "Sol", persona: "p", model })).id;
  });
  afterEach(async () => {
    await db.delete();
  });

  const curations = async () => (await tailSteps(db, mindId, 50)).filter((s) => s.type === "observation" && s.source === "curation");

  it("makes a stopped mind's change at once: the file (with its folder) and the step, together", async () => {
    await setRunning(db, mindId, false);
    const c = change({ what: "memory", op: "add", text: "Bo prefers mornings" });
    const done = await curate(db, mindId, c, T0, ids);
    expect(done).toMatchObject({ applied: true, fresh: true });
    const notes = await readMindNotes(db, mindId);
    expect(notes.memories.map((m) => [m.id, m.text, m.by])).toEqual([["c0ffee01", "Bo prefers mornings\n", "Ada"]]);
    expect(await curations()).toEqual([expect.objectContaining({ step_id: c.id, op: "add", target: "c0ffee01", content: "Ada (owner) added a memory, c0ffee01: Bo prefers mornings" })]);
    // Asked again (a retried request): the same step, nothing more.
    expect(await curate(db, mindId, c, T0 + 1, ids)).toEqual({ applied: true, step: expect.objectContaining({ step_id: c.id }), fresh: false });
    expect(await curations()).toHaveLength(1);
    // The mind's sandbox, opened from the saved rows, sees the file in its folder.
    const { fs } = await openPersistentFs(mindFiles(db, mindId));
    expect(await fs.readFile("/workspace/memory/c0ffee01.md")).toContain("Bo prefers mornings");
  });

  it("queues a running mind's change for its worker, which makes it in its sandbox and writes the step once", async () => {
    const c = change({ what: "goal", op: "add", text: "call Bo" });
    expect(await curate(db, mindId, c, T0, ids)).toEqual({ applied: false, fresh: true });
    expect(await curate(db, mindId, c, T0, ids)).toEqual({ applied: false, fresh: false });
    expect((await queuedCurations(db, mindId)).map((q) => q.id)).toEqual([c.id]);
    expect(await curations()).toEqual([]);

    // The running mind: its persistent filesystem, saved after the change, and the change's step recorded through its state (as lib/home/start.ts does).
    const { fs, flush } = await openPersistentFs(mindFiles(db, mindId));
    const state = indexedDbMindState(db, mindId);
    await serveCurationQueue(db, mindId, async (q) => {
      const step = await applyCuration(sandboxCurationFs(fs), q, T0, ids);
      await flush();
      await state.append({ steps: [{ trajId: mindId, step }], seen: [] });
      return step;
    });
    // The page's wait for its step: the worker's write is announced to other contexts (the page), so it is read once written.
    expect(await curationStep(db, mindId, c.id, AbortSignal.timeout(5_000))).toMatchObject({ step_id: c.id, op: "add", content: "Ada (owner) set you a goal, abcd: call Bo" });
    expect(await queuedCurations(db, mindId)).toEqual([]);
    expect((await readMindNotes(db, mindId)).goals.map((g) => [g.id, g.goal])).toEqual([["abcd", "call Bo"]]);
    // Served again: nothing left, nothing written twice.
    await serveCurationQueue(db, mindId, () => Promise.reject(new Error("not called")));
    expect(await curations()).toHaveLength(1);
  });

  it("makes what a stopped worker left in the queue on the saved rows, and nothing while the mind runs", async () => {
    const c = change({ what: "memory", op: "add", text: "left behind" });
    await curate(db, mindId, c, T0, ids);
    expect(await drainCurationQueue(db, mindId, T0)).toBe(0);
    await setRunning(db, mindId, false);
    expect(await drainCurationQueue(db, mindId, T0)).toBe(1);
    expect(await queuedCurations(db, mindId)).toEqual([]);
    expect((await readMindNotes(db, mindId)).memories.map((m) => m.text)).toEqual(["left behind\n"]);
    expect(await curations()).toHaveLength(1);
  });

  it("records a change that could not be made, and changes nothing", async () => {
    await setRunning(db, mindId, false);
    const done = await curate(db, mindId, change({ what: "memory", op: "forget", target: "nothere" }), T0, ids);
    expect(done).toMatchObject({ applied: true, step: { failed: "there is no such memory (forgotten already?)" } });
    expect(await readMindNotes(db, mindId)).toEqual({ goals: [], memories: [] });
  });

  it("gives up waiting for a step when told to", async () => {
    const controller = new AbortController();
    const waiting = curationStep(db, mindId, "nobody", controller.signal);
    controller.abort();
    expect(await waiting).toBeNull();
  });
});
