// Sealed summaries beside a trajectory (the `tiers` table) and the keys-only
// index of its filtered stream. A summary is sealed once: `add`, never `put`,
// so a second seal of the same block is refused by the database itself and
// nothing is ever rewritten. Rows read back are parsed with the tiers.jsonl
// line schema; one that does not parse is skipped and counted.
import Dexie from "dexie";
import { TierLine } from "../../context/rollups";
import type { SealedTier, StreamKey } from "../../context/sealed-past";
import type { TierStorePort } from "../../mind/ports";
import { inStream } from "../../context/build";
import type { Step } from "../../trajectory/schema";
import type { ReverieDb, TierRow } from "../db/db";
import { parseRows } from "../steps/steps";
import { isSetAside, setAside, withoutSetAside } from "../steps/aside";

export class AlreadySealedError extends Error {
  constructor(readonly tier: number, readonly index: number) {
    super(`Block ${index} of tier ${tier} is sealed already; a sealed summary is never rewritten.`);
  }
}

export class InvalidTierError extends Error {}

const STREAM_INDEX = "[mind_id+traj_id+seq+type+step_id]";

/** Seal one block's summary. Throws AlreadySealedError when the block has one, InvalidTierError when the row is not a sealed summary. */
export async function sealTier(db: ReverieDb, mindId: string, trajId: string, tier: SealedTier & { model?: string; created?: string }): Promise<void> {
  const parsed = TierLine.safeParse(tier);
  if (!parsed.success) throw new InvalidTierError(`Refusing to seal an invalid summary: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const row: TierRow = { mind_id: mindId, traj_id: trajId, ...parsed.data };
  if (tier.model !== undefined) row.model = tier.model;
  if (tier.created !== undefined) row.created = tier.created;
  try {
    await db.tiers.add(row);
  } catch (e) {
    if (e instanceof Dexie.ConstraintError || (e instanceof Error && e.name === "ConstraintError")) throw new AlreadySealedError(tier.tier, tier.index);
    throw e;
  }
}

/** Every sealed summary of a trajectory, finest tier first. */
export async function readTiers(db: ReverieDb, mindId: string, trajId: string): Promise<{ tiers: SealedTier[]; skipped: number }> {
  const rows = await db.tiers.where("[mind_id+traj_id]").equals([mindId, trajId]).toArray();
  const tiers: SealedTier[] = [];
  let skipped = 0;
  for (const row of rows) {
    const parsed = TierLine.safeParse(row);
    if (parsed.success) tiers.push(parsed.data);
    else skipped++;
  }
  tiers.sort((a, b) => a.tier - b.tier || a.index - b.index);
  return { tiers, skipped };
}

/** The stream index's entries after `afterSeq`: seq, type and id of each step of the trajectory, read from the index's keys alone (no row is read; rows a pull set aside are left out by their seq). */
export async function streamKeysAfter(db: ReverieDb, mindId: string, trajId: string, afterSeq: number): Promise<StreamKey[]> {
  const [keys, aside] = await Promise.all([db.steps.where(STREAM_INDEX).between([mindId, trajId, afterSeq + 1], [mindId, trajId, Dexie.maxKey]).keys(), setAside(db, mindId)]);
  const out: StreamKey[] = [];
  for (const k of keys) {
    if (!Array.isArray(k)) continue;
    const [, , seq, type, step_id] = k as unknown[];
    if (typeof seq === "number" && typeof type === "string" && typeof step_id === "string" && !isSetAside(aside, seq)) out.push({ seq, type, step_id });
  }
  return out;
}

/**
 * The same entries, read from the rows (by [mind_id+traj_id+seq], in one
 * getAll) rather than walked key by key: a key cursor pays a round trip per
 * entry (fake-indexeddb about a millisecond each), while a bounded range of
 * rows (a start reads only what follows its sealed past, then a few new steps
 * at a time) comes back at once. What the mind's tier store reads.
 */
export async function streamEntriesAfter(db: ReverieDb, mindId: string, trajId: string, afterSeq: number): Promise<StreamKey[]> {
  const [rows, aside] = await Promise.all([db.steps.where("[mind_id+traj_id+seq]").between([mindId, trajId, afterSeq + 1], [mindId, trajId, Dexie.maxKey]).toArray(), setAside(db, mindId)]);
  const out: StreamKey[] = [];
  for (const r of withoutSetAside(rows, aside)) if (typeof r.seq === "number" && typeof r.type === "string" && typeof r.step_id === "string") out.push({ seq: r.seq, type: r.type, step_id: r.step_id });
  return out;
}

/** A trajectory's steps in the stream with seq in [first, last], oldest first. */
export async function streamStepsBetween(db: ReverieDb, mindId: string, trajId: string, first: number, last: number): Promise<Step[]> {
  const [rows, aside] = await Promise.all([db.steps.where("[mind_id+traj_id+seq]").between([mindId, trajId, first], [mindId, trajId, last], true, true).toArray(), setAside(db, mindId)]);
  return parseRows(withoutSetAside(rows, aside)).steps.filter(inStream);
}

/** The tier store port of one trajectory (the mind's root by default). */
export function tierStore(db: ReverieDb, mindId: string, trajId = mindId): TierStorePort {
  return {
    list: async () => (await readTiers(db, mindId, trajId)).tiers,
    seal: async (tier) => {
      try {
        await sealTier(db, mindId, trajId, tier);
        return "sealed";
      } catch (e) {
        if (e instanceof AlreadySealedError) return "already-sealed";
        throw e;
      }
    },
    keysAfter: (seq) => streamEntriesAfter(db, mindId, trajId, seq),
    steps: (first, last) => streamStepsBetween(db, mindId, trajId, first, last),
  };
}
