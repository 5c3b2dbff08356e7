// Small per-browser preferences.
import * as z from "zod";
import type { ReverieDb } from "../db/db";

export const DEFAULT_SENDER = "you";

/** The name messages typed in this browser come from. */
export async function getSenderName(db: ReverieDb): Promise<string> {
  const row = await db.settings.get("sender");
  const parsed = z.string().trim().min(1).safeParse(row?.value);
  return parsed.success ? parsed.data : DEFAULT_SENDER;
}

export async function setSenderName(db: ReverieDb, name: string): Promise<void> {
  await db.settings.put({ key: "sender", value: name.trim() || DEFAULT_SENDER });
}
