// A mind's `config` steps (one per change its human made in Settings), or its
// self-edits (changes to its own texts), newest first, found by the keys-only [mind_id+traj_id+seq+type+step_id] index so
// the rows of other kinds are never read or parsed.
import Dexie from "dexie";
import { isKind, type KnownKind, type StepOf } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import { parseRows } from "./steps";
import { isSetAside, setAside } from "./aside";

export type ConfigStep = StepOf<"config">;

/** The newest `limit` config steps of the mind's own trajectory, newest first. */
export const recentConfigSteps = (db: ReverieDb, mindId: string, limit: number): Promise<ConfigStep[]> => recentStepsOfKind(db, mindId, "config", limit);

/** The newest `limit` steps of one kind in the mind's own trajectory, newest first (config steps; self-edits). */
export async function recentStepsOfKind<K extends KnownKind>(db: ReverieDb, mindId: string, kind: K, limit: number): Promise<StepOf<K>[]> {
  const ids: string[] = [];
  const aside = await setAside(db, mindId);
  await db.steps
    .where("[mind_id+traj_id+seq+type+step_id]")
    // A shorter key sorts before every longer one it begins: [mind, traj, 0] is below all of the trajectory's entries.
    .between([mindId, mindId, 0], [mindId, mindId, Dexie.maxKey])
    .reverse()
    .until(() => ids.length >= limit)
    .eachKey((key) => {
      const [, , seq, type, stepId] = key as [string, string, number, string, string];
      if (type === kind && !isSetAside(aside, seq)) ids.push(stepId);
    });
  if (!ids.length) return [];
  const rows = await db.steps.where("[mind_id+step_id]").anyOf(ids.map((id) => [mindId, id])).toArray();
  const steps = parseRows(rows.sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0))).steps;
  return steps.filter((s): s is StepOf<K> => isKind(s, kind));
}
