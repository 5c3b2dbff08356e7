// The chat view's read and the panic stop's write, over fake-indexeddb.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recoverAtStart } from "@/lib/mind/recovery";
import { chatSteps, mindConversations } from "@/lib/store/steps/chat";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind, PANIC_CONTENT, panicStop, requestPanic, setRunning } from "@/lib/store/minds/minds";
import { appendStep, tailSteps } from "@/lib/store/steps/steps";
import type { Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";
import { id } from "../../helpers/steps";

let db: ReverieDb;
let mindId: string;
const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const ts = (n: number) => new Date(NOW - 60_000 + n * 1000).toISOString();

beforeEach(async () => {
  db = await openTestDb("chat-store");
  mindId = (await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } }, NOW - 120_000)).id;
});

afterEach(async () => {
  await db.delete();
});

const append = async (...steps: Step[]) => {
  for (const s of steps) await appendStep(db, mindId, s);
};

describe("chatSteps", () => {
  it("reads the root trajectory's messages and decisions only, in order", async () => {
    const hi: Step = { type: "message", step_id: id(1), ts: ts(1), source: "chat", from: "bo", to: "Ada", content: "hi" };
    const wake: Step = { type: "wake", step_id: id(2), ts: ts(2), reason: "message", level: 0, delay_s: 0, trigger_step: id(1), source: "responder" };
    const note: Step = { type: "observation", step_id: id(3), ts: ts(3), content: "I looked around.", source: "monolith" };
    const reply: Step = { type: "message", step_id: id(4), ts: ts(4), source: "chat", from: "Ada", to: "bo", content: "Hello bo.", reply_to: id(1), trigger_step: id(1) };
    const decided: Step = { type: "observation", step_id: id(5), ts: ts(5), decision: "replied", content: "I answered bo.", trigger_step: id(1), source: "responder" };
    const inChild: Step = { type: "message", step_id: id(6), ts: ts(6), source: "chat", from: "Ada", to: "cy", content: "from a child run" };
    await append(hi, wake, note, reply, decided);
    await appendStep(db, mindId, inChild, id(99, "bbbbbbbbbbbb"));
    expect(await chatSteps(db, mindId)).toEqual([hi, reply, decided]);
    expect(await mindConversations(db, mindId)).toEqual([{ person: "bo", duplicates: 0, lastTs: ts(4), entries: [{ kind: "received", message: hi, status: "replied", reply }] }]);
  });

  it("has no conversations for a mind that is not there", async () => {
    expect(await mindConversations(db, "no-such-mind")).toBeNull();
  });
});

describe("panic stop", () => {
  const run: Step = { type: "shellm-run", step_id: id(10), ts: ts(10), model: "gpt", launched_by: "monolith" };
  const prompt: Step = { type: "prompt", step_id: id(11), ts: ts(11), run_id: id(10), content: "wake up" };

  it("closes the run in flight with an error step and stops the mind, so start-up marks nothing interrupted", async () => {
    await append(run, prompt);
    await requestPanic(db, mindId, NOW - 1000);
    expect(await getMind(db, mindId)).toMatchObject({ running: false, panic_at: new Date(NOW - 1000).toISOString() });

    const written = await panicStop(db, mindId, id(10), NOW);
    expect(written.map(({ step_id: _, ...rest }) => rest)).toEqual([
      { type: "error", ts: new Date(NOW).toISOString(), reason: "panic-stop", content: PANIC_CONTENT, run_id: id(10), source: "system" },
    ]);
    const tail = await tailSteps(db, mindId, 200);
    expect(tail.at(-1)).toEqual(written[0]);
    const mind = await getMind(db, mindId);
    expect(mind?.running).toBe(false);
    expect(mind && "panic_at" in mind).toBe(false);
    expect(recoverAtStart(tail, NOW + 1000, "Ada").steps).toEqual([]);

    await setRunning(db, mindId, true);
    expect((await getMind(db, mindId))?.running).toBe(true);
  });

  it("finds the run in flight itself when the runner did not know it", async () => {
    await append(run, prompt);
    const [step, ...more] = await panicStop(db, mindId, undefined, NOW);
    expect(more).toEqual([]);
    expect(step).toMatchObject({ type: "error", reason: "panic-stop", run_id: id(10) });
  });

  it("with no run in flight, records the stop without a run", async () => {
    const written = await panicStop(db, mindId, undefined, NOW);
    expect(written.map(({ step_id: _, ...rest }) => rest)).toEqual([{ type: "error", ts: new Date(NOW).toISOString(), reason: "panic-stop", content: PANIC_CONTENT, source: "system" }]);
  });

  it("writes nothing when the mind is not there", async () => {
    await expect(panicStop(db, "no-such-mind", undefined, NOW)).rejects.toThrow("No mind no-such-mind");
    expect(await db.steps.count()).toBe(2);
  });
});
