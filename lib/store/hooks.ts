// React hooks over the database: live queries that re-render on every change,
// in this tab or another (Dexie broadcasts changes between tabs and workers).
"use client";
import { useLiveQuery } from "dexie-react-hooks";
import { getArchive, listArchives, type ImportedArchive } from "./archives";
import { db } from "./db";
import { getMind, listMinds, type Mind } from "./minds";
import { getSenderName } from "./settings";

export function useMinds(): Mind[] | undefined {
  return useLiveQuery(() => listMinds(db()), []);
}

/** undefined while loading, null when there is no such mind. */
export function useMind(id: string): Mind | null | undefined {
  return useLiveQuery(() => getMind(db(), id), [id]);
}

export function useSenderName(): string | undefined {
  return useLiveQuery(() => getSenderName(db()), []);
}

export function useArchive(id: string): ImportedArchive | null | undefined {
  return useLiveQuery(() => getArchive(db(), id), [id]);
}

export function useArchives(): ImportedArchive[] | undefined {
  return useLiveQuery(() => listArchives(db()), []);
}
