// Imported trajectories: read-only owners of steps, listed beside the minds.
import * as z from "zod";
import type { ReverieDb } from "../db/db";
import { getOwner, listOwners } from "./owners";

export const ImportedArchive = z.object({
  kind: z.literal("imported"),
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  /** The file it came from. */
  source: z.string(),
  stats: z.object({
    steps: z.number(),
    skipped: z.number(),
    trajectories: z.number(),
    forks: z.number(),
    runs: z.number(),
    blobs: z.number(),
  }),
  /** The mind.json that came with it, if any (persona and settings; never keys). */
  mind: z.unknown().optional(),
});
export type ImportedArchive = z.infer<typeof ImportedArchive>;

export function parseArchive(json: unknown): ImportedArchive | null {
  const r = ImportedArchive.safeParse(json);
  return r.success ? r.data : null;
}

export const getArchive = (db: ReverieDb, id: string) => getOwner(db, id, parseArchive);

export const listArchives = (db: ReverieDb) => listOwners(db, parseArchive);
