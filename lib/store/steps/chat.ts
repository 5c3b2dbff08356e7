// Reads for the chat view: a mind's messages and the responder's decisions,
// from its root trajectory. Rows are picked by their `type` column (and, for
// observations, whether they carry a decision) before any JSON is parsed.
import Dexie from "dexie";
import { conversations, type Conversation } from "../../trajectory/chat";
import type { Step } from "../../trajectory/schema";
import type { ReverieDb, StepRow } from "../db/db";
import { getMind } from "../minds/minds";
import { parseRows } from "./steps";
import { passingOver, setAside } from "./aside";

const wanted = (row: StepRow) => row.type === "message" || (row.type === "observation" && row.json.includes('"decision"'));

/** The messages and decision observations of a mind's root trajectory, oldest first. */
export async function chatSteps(db: ReverieDb, mindId: string): Promise<Step[]> {
  const rows = await passingOver(db.steps.where("[mind_id+traj_id+seq]").between([mindId, mindId, Dexie.minKey], [mindId, mindId, Dexie.maxKey]), await setAside(db, mindId))
    .filter(wanted)
    .toArray();
  return parseRows(rows).steps;
}

/** A mind's conversations; null when there is no such mind. */
export async function mindConversations(db: ReverieDb, mindId: string): Promise<Conversation[] | null> {
  const mind = await getMind(db, mindId);
  if (!mind) return null;
  return conversations(await chatSteps(db, mindId), mind.name);
}
