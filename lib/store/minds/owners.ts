// Owners of steps share one table (a mind, or an imported archive): read one
// or all of a kind through that kind's parser, so damaged rows are left out.
import type { ReverieDb } from "../db/db";

export async function getOwner<T>(db: ReverieDb, id: string, parse: (json: unknown) => T | null): Promise<T | null> {
  const row = await db.minds.get(id);
  return row ? parse(row.json) : null;
}

/** Every owner of a kind, newest first. */
export async function listOwners<T extends { created_at: string }>(db: ReverieDb, parse: (json: unknown) => T | null): Promise<T[]> {
  const rows = await db.minds.toArray();
  return rows.flatMap((r) => parse(r.json) ?? []).sort((a, b) => b.created_at.localeCompare(a.created_at));
}
