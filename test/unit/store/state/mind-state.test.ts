// lib/store/mind-state.ts: the IndexedDB home of a mind's state
// (indexedDbMindState, over fake-indexeddb) keeps what every home of a mind's
// state keeps (helpers/mind-state-contract.ts), as the memory home does
// (mind-state.test.ts). A fresh database per case: the minds of one case (the
// contract makes two to show they do not see each other) share it, as a
// browser's minds do.
import { afterEach, beforeEach } from "vitest";
import type { ReverieDb } from "@/lib/store/db/db";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { openTestDb } from "../../helpers/db";
import { mindStateContract } from "../../helpers/mind-state-contract";
import { inboundContract } from "../../helpers/mind-state-inbound";
import { curate } from "@/lib/store/minds/curations";
import { appendStep } from "@/lib/store/steps/steps";
import { stampStep } from "@/lib/trajectory/schema";
import { MindSettings } from "@/lib/mind/settings/settings";

let db: ReverieDb | null = null;

beforeEach(async () => {
  db = await openTestDb("mind-state-idb");
});

afterEach(async () => {
  await db?.delete();
  db = null;
});

/** A mind's record and its root trajectory, as createMind stores them, without createMind's first steps (the contract's state holds no step yet) and with the contract's id. */
async function storeMind(db: ReverieDb, mindId: string): Promise<void> {
  const mind = MindSettings.parse({ id: mindId, name: "Reverie", persona: "", model: { provider: "openai", model: "gpt-test" }, created_at: "2025-01-01T00:00:00.000Z", running: true });
  await db.minds.add({ id: mindId, json: mind });
  await db.trajectories.add({ mind_id: mindId, traj_id: mindId, name: mind.name, dir: "" });
}

mindStateContract("indexedDbMindState", async (mindId) => {
  if (!db) throw new Error("no database open for this case");
  await storeMind(db, mindId);
  return indexedDbMindState(db, mindId);
});

// Its way in: what the page appends (a person's message) comes through the change feed, a change through the queue the page fills while the mind runs.
inboundContract("indexedDbMindState", async (mindId) => {
  const here = db;
  if (!here) throw new Error("no database open for this case");
  await storeMind(here, mindId);
  return Object.assign(indexedDbMindState(here, mindId), {
    outside: {
      message: async (from: string, content: string) => void (await appendStep(here, mindId, stampStep({ type: "message", source: "chat", from, to: "Reverie", content }, { id: crypto.randomUUID(), now: Date.now() }))),
      change: async ({ id, text }: { id: string; text: string }) => void (await curate(here, mindId, { what: "memory", op: "add", text, id, by: "Ada", role: "owner" })),
      settle: async () => undefined,
    },
  });
});
