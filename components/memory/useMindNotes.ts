"use client";
// The mind's memories and goals, live: re-read whenever its workspace rows
// change (the worker saves after each block), as the Files tab's tree is.
import { useLiveQuery } from "dexie-react-hooks";
import { db } from "@/lib/store/db/db";
import { readMindNotes, type MindNotes } from "@/lib/store/minds/memory";

/** undefined while loading. */
export function useMindNotes(mindId: string): MindNotes | undefined {
  return useLiveQuery(() => readMindNotes(db(), mindId), [mindId]);
}
