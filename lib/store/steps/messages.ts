// A person's message to a mind: one more step in its trajectory, handed in at
// its door (its writer takes it while it runs).
import { stampStep, type Step } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import { enter } from "./door";
import { systemIds } from "../../system/system";

export const MAX_MESSAGE_CHARS = 20_000;

export async function sendMessage(db: ReverieDb, mindId: string, msg: { from: string; to: string; content: string }): Promise<Step> {
  const content = msg.content.trim();
  if (!content) throw new Error("An empty message is not sent.");
  if (content.length > MAX_MESSAGE_CHARS) throw new Error(`A message can be at most ${MAX_MESSAGE_CHARS} characters.`);
  const step = stampStep({ type: "message", source: "chat", from: msg.from, to: msg.to, content }, { id: systemIds.uuid(), now: Date.now() });
  await enter(db, mindId, step);
  return step;
}
