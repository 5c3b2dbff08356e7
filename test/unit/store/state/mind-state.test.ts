// lib/store/mind-state.ts: the IndexedDB home of a mind's state
// (indexedDbMindState, over fake-indexeddb) keeps what every home of a mind's
// state keeps (helpers/mind-state-contract.ts), as the memory home does
// (mind-state.test.ts). A fresh database per case: the minds of one case (the
// contract makes two to show they do not see each other) share it, as a
// browser's minds do.
import { afterEach, beforeEach } from "vitest";
import type { ReverieDb } from "@/lib/store/db/db";
import { Mind } from "@/lib/store/minds/minds";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { openTestDb } from "../../helpers/db";
import { mindStateContract } from "../../helpers/mind-state-contract";

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
  const mind = Mind.parse({ id: mindId, name: "Reverie", persona: "", model: { provider: "openai", model: "gpt-test" }, created_at: "2025-01-01T00:00:00.000Z", running: true });
  await db.minds.add({ id: mindId, json: mind });
  await db.trajectories.add({ mind_id: mindId, traj_id: mindId, name: mind.name, dir: "" });
}

mindStateContract("indexedDbMindState", async (mindId) => {
  if (!db) throw new Error("no database open for this case");
  await storeMind(db, mindId);
  return indexedDbMindState(db, mindId);
});
