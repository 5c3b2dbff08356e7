// The tab's door (lib/store/steps/door.ts): what a page hands a mind while it
// runs waits for its writer, which takes it stamped as it takes it; a stopped
// mind's is appended at once; a step is written once, whichever way; what a
// worker ended at once left behind is appended when the mind is stopped.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { on } from "@/lib/mind/events";
import { runMind } from "@/lib/home/tab";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, setRunning } from "@/lib/store/minds/minds";
import { drainDoor, enter, waiting } from "@/lib/store/steps/door";
import { sendMessage } from "@/lib/store/steps/messages";
import { tailSteps } from "@/lib/store/steps/steps";
import { stampStep, type Step } from "@/lib/trajectory/schema";
import { startModelServer, type ModelServer } from "../../../fixtures/model-server";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;
let model: ModelServer;
const T0 = Date.UTC(2026, 11, 1, 9);
const message = (content: string, at: number): Step => stampStep({ type: "message", source: "chat", from: "Ada", to: "Wren", content }, { id: crypto.randomUUID(), now: at });
const types = async (mindId: string) => (await tailSteps(db, mindId, 100)).map((s) => (s.type === "message" ? `message ${"content" in s ? String(s.content) : ""}` : s.type));

beforeEach(async () => {
  db = await openTestDb("door-test");
  model = await startModelServer();
});

afterEach(async () => {
  await model.close();
  await db.delete();
});

const newMind = () => createMind(db, { name: "Wren", persona: "p", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } }, T0);

describe("the door", () => {
  it("a stopped mind's step is appended at once; a running mind's waits for its writer; a step is handed in once", async () => {
    const mind = await newMind();
    const held = message("while it runs", T0 + 1000);
    expect(await enter(db, mind.id, held)).toBe(true);
    expect(await enter(db, mind.id, held)).toBe(false);
    expect((await waiting(db, mind.id)).map((w) => w.step?.step_id)).toEqual([held.step_id]);
    expect(await types(mind.id)).toEqual(["trajectory", "config"]);

    await setRunning(db, mind.id, false);
    const now = message("while it is stopped", T0 + 2000);
    expect(await enter(db, mind.id, now)).toBe(true);
    expect(await types(mind.id)).toEqual(["trajectory", "config", "message while it is stopped"]);
    // What a worker ended at once left at the door: appended once the mind is stopped, and the door is empty.
    expect(await drainDoor(db, mind.id)).toBe(1);
    expect(await waiting(db, mind.id)).toEqual([]);
    expect(await types(mind.id)).toEqual(["trajectory", "config", "message while it is stopped", "message while it runs"]);
    expect(await enter(db, mind.id, held)).toBe(false);
  });

  it("the running mind's writer takes a person's message: stamped as it takes it, so every step after it reads later", async () => {
    const mind = await newMind();
    const handle = await runMind(db, mind.id, on("status", ({ status }) => void (status.state === "waiting" && void handle.stop())));
    // Sent as the mind thinks, stamped by the page at a time before the mind's own steps: its writer stamps it anew.
    const sent = await sendMessage(db, mind.id, { from: "Ada", to: "Wren", content: "hello" });
    await handle.done;
    const steps = await tailSteps(db, mind.id, 200);
    const written = steps.find((s) => s.step_id === sent.step_id);
    expect(written?.type).toBe("message");
    expect(await waiting(db, mind.id)).toEqual([]);
    // Stored order is time order.
    const ts = steps.map((s) => Date.parse(s.ts));
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
  });
});
