// What each model call saw (the `contexts` table), and what it takes to
// rebuild the messages from it: the steps and sealed summaries it cites. The
// instructions change rarely and are long, so each of their parts is stored
// once, content-addressed (`seen-text:<sha-256>` in `settings`), and a call's
// row names it by hash. A call's row is most often a delta against the run's
// previous one (lib/store/derived/seen-delta.ts): the recorder remembers each run's
// last record, and reading resolves a run's rows together, so what leaves
// this file is always the whole SeenCall. Rows read back are parsed; a
// damaged one is skipped, and a delta whose base is gone says so in `missing`.
import { TierLine } from "../../context/rollups";
import { shownSteps, type ReplayLookups, type SeenCall, type SeenPart } from "../../context/replay";
import type { ContextPort } from "../../mind/ports";
import type { Step } from "../../trajectory/schema";
import type { ContextRow, ReverieDb } from "../db/db";
import { encodeCall, resolveRecords, sealedHash, StoredCall, type Encoded, type Previous, type SealedFacts } from "./seen-delta";
import { carryingRows, InvalidStepError, parseRows, type RowsWith, type StoreLog } from "../steps/steps";

const textKey = (hash: string) => `seen-text:${hash}`;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** How many distinct instruction texts a recorder remembers having hashed and stored. */
const KNOWN_TEXTS = 64;

export interface ContextRecorder extends ContextPort {
  /** Resolves when every record so far is written (or has failed and been reported). */
  settled(): Promise<void>;
  /**
   * `log` (a log that writes steps and their usage rows), whose writes also
   * carry the records of the steps they write, in the same transaction: a
   * record written on its own was one more transaction per model call. A
   * record whose step's write has begun already, or whose instructions' texts
   * are not stored yet, is written on its own, as before.
   */
  carriedBy(log: StoreLog): StoreLog;
}

/** Runs whose last record the recorder remembers as the base of their next (a mind runs a few at once: its inner life, the responder, nested runs). */
const RUNS_KEPT = 16;
/** Sealed tier parts whose hash is remembered: a keyframe shows a few dozen, the same ones run after run. */
const TIER_HASHES_KEPT = 1024;

type TierPart = Extract<SeenPart, { kind: "tier" }>;

/** Records waiting for their step's write, at most; beyond that the oldest go on their own. */
const WAITING_MAX = 64;
/** Steps whose write has begun, remembered: a record comes within a turn of its step's append, never hundreds of steps later. */
const CLAIMED_KEPT = 1024;

/**
 * The mind's ContextPort: writes in the background, in order, one call at a
 * time (or with the step the call led to: `carriedBy`). A failed write never
 * reaches the run; `onError` hears of it.
 */
export function contextRecorder(db: ReverieDb, mindId: string, onError: (e: unknown) => void = () => {}): ContextRecorder {
  // Text → hash of the texts stored already: the same instructions, wake after wake, are hashed and written once.
  const stored = new Map<string, string>();
  let chain: Promise<void> = Promise.resolve();
  // Rows ready to go with their step, by step id; and the steps whose write has begun.
  const waiting = new Map<string, ContextRow>();
  const claimed = new Set<string>();
  // Each run's last record, the base of its next; and the hashes of sealed tier parts seen lately.
  const runs = new Map<string, Previous>();
  const tierHashes = new Map<string, { part: TierPart; hash: string }>();
  /** A run whose record was not stored: its next record is a keyframe (a delta against a lost base could not be resolved). */
  const forget = (runId: string) => runs.delete(runId);
  const failed = (runId: string) => (e: unknown) => {
    forget(runId);
    onError(e);
  };
  const hashFor = (trajId: string) => (p: TierPart) => {
    const key = `${trajId}:${p.tier}:${p.index}`;
    const known = tierHashes.get(key);
    // The same strings call after call: comparing them is cheaper than hashing them again.
    if (known && known.part.count === p.count && known.part.first === p.first && known.part.last === p.last && known.part.cites.length === p.cites.length && known.part.cites.every((c, i) => c === p.cites[i])) return known.hash;
    const hash = sealedHash({ steps: p.count, first_step: p.first, last_step: p.last, cites: p.cites });
    if (tierHashes.size >= TIER_HASHES_KEPT) tierHashes.clear();
    tierHashes.set(key, { part: p, hash });
    return hash;
  };
  const encode = (call: SeenCall): Encoded => {
    let enc: Encoded;
    try {
      enc = encodeCall(call, runs.get(call.run_id), hashFor(call.traj_id));
    } catch (e) {
      // Never into the run: stored whole, as older builds stored it, and a keyframe.
      onError(e);
      enc = { system: true, parts: call.parts, previous: { step_id: call.step_id, iteration: call.iteration, depth: 0, parts: call.parts, system: call.system } };
    }
    runs.delete(call.run_id);
    runs.set(call.run_id, enc.previous);
    if (runs.size > RUNS_KEPT) runs.delete(runs.keys().next().value as string);
    return enc;
  };
  /** The row's fields but its instructions (stored by hash, when it stores them). */
  const rowOf = (call: SeenCall, enc: Encoded, system?: ContextRow["system"]): ContextRow => {
    const { system: _s, parts: _p, ...fields } = call;
    return { ...fields, mind_id: mindId, ...(enc.base !== undefined ? { base: enc.base } : {}), ...(system ? { system } : {}), parts: enc.parts };
  };
  const alone = (call: SeenCall, enc: Encoded) => {
    chain = chain.then(() => write(call, enc)).catch(failed(call.run_id));
  };
  const putAlone = (row: ContextRow) => {
    chain = chain.then(() => db.contexts.put(row).then(() => undefined)).catch(failed(row.run_id));
  };
  const claim = (stepId: string) => {
    claimed.add(stepId);
    if (claimed.size > 2 * CLAIMED_KEPT) {
      const newest = [...claimed].slice(-CLAIMED_KEPT);
      claimed.clear();
      for (const id of newest) claimed.add(id);
    }
  };
  const hashOf = async (text: string): Promise<{ hash: string; fresh: boolean }> => {
    const known = stored.get(text);
    if (known) return { hash: known, fresh: false };
    return { hash: await sha256(text), fresh: true };
  };
  const write = async (call: SeenCall, enc: Encoded) => {
    const hashed = enc.system ? await Promise.all(call.system.map(async (s) => ({ ...s, ...(await hashOf(s.text)) }))) : [];
    const row = rowOf(call, enc, enc.system ? hashed.map((s) => ({ kind: s.kind, hash: s.hash, tokens: s.tokens })) : undefined);
    const texts = hashed.filter((s) => s.fresh).map((s) => ({ key: textKey(s.hash), value: s.text }));
    // Texts first, in the same transaction: a row never names a text that is not there.
    await db.transaction("rw", db.settings, db.contexts, async () => {
      if (texts.length) await db.settings.bulkPut(texts);
      await db.contexts.put(row);
    });
    for (const s of hashed) {
      if (stored.size >= KNOWN_TEXTS && !stored.has(s.text)) stored.delete(stored.keys().next().value as string);
      stored.set(s.text, s.hash);
    }
  };
  /** The row of a call whose texts are all stored already, or that keeps its base's (null: one is not, it goes on its own). */
  const rowNow = (call: SeenCall, enc: Encoded): ContextRow | null => {
    if (!enc.system) return rowOf(call, enc);
    const system = [];
    for (const s of call.system) {
      const hash = stored.get(s.text);
      if (!hash) return null;
      system.push({ kind: s.kind, hash, tokens: s.tokens });
    }
    return rowOf(call, enc, system);
  };
  const carriedBy = (log: StoreLog): StoreLog => {
    const appendWith = async (steps: readonly Step[], withRows: RowsWith) => {
      const rows: ContextRow[] = [];
      for (const step of steps) {
        claim(step.step_id);
        const row = waiting.get(step.step_id);
        if (row) {
          waiting.delete(step.step_id);
          rows.push(row);
        }
      }
      if (rows.length === 0) return log.appendWith(steps, withRows);
      try {
        // The log beneath writes steps and their usage rows: the records go in the same transaction.
        await log.appendWith(steps, (stored) => {
          const written = new Set(stored.map((s) => s.step_id));
          const mine = rows.filter((r) => written.has(r.step_id));
          for (const r of rows) if (!written.has(r.step_id)) forget(r.run_id);
          return mine.length ? [{ table: "contexts", op: "put", rows: mine }, ...withRows(stored)] : withRows(stored);
        });
      } catch (e) {
        // A refused step: the ones before it are stored, with their records.
        if (e instanceof InvalidStepError) throw e;
        // Nothing of it was stored. The steps must not fail for their records (derived data): once more, alone.
        for (const r of rows) forget(r.run_id);
        onError(e);
        return log.appendWith(steps, withRows);
      }
    };
    return carryingRows(log, appendWith, carriedBy);
  };
  return {
    record(call) {
      const enc = encode(call);
      const row = claimed.has(call.step_id) ? null : rowNow(call, enc);
      if (!row) return alone(call, enc);
      waiting.set(call.step_id, row);
      if (waiting.size > WAITING_MAX) {
        const [oldest] = waiting;
        if (oldest) {
          waiting.delete(oldest[0]);
          putAlone(oldest[1]);
        }
      }
    },
    settled: () => {
      // Records still waiting for a step that is not being written: on their own now.
      for (const [id, row] of waiting) {
        waiting.delete(id);
        putAlone(row);
      }
      return chain;
    },
    carriedBy,
  };
}

/** A recorded call, its instructions' text looked up; `missing` names the parts whose text is gone. */
export interface StoredSeen {
  call: SeenCall;
  missing: string[];
}

function parsed(rows: readonly ContextRow[]): StoredCall[] {
  return rows.flatMap((r) => {
    const p = StoredCall.safeParse(r);
    return p.success ? [p.data] : [];
  });
}

/** Records rebuilt whole: their instructions' texts and the tiers rows their sealed parts name read at once. `records` hold their bases. */
async function resolve(db: ReverieDb, records: StoredCall[]): Promise<StoredSeen[]> {
  const hashes = [...new Set(records.flatMap((r) => (r.system ?? []).map((s) => s.hash)))];
  const texts = new Map<string, string>();
  (await db.settings.bulkGet(hashes.map(textKey))).forEach((row, i) => {
    if (row && typeof row.value === "string") texts.set(hashes[i] as string, row.value);
  });
  const blockKey = (mind: string, traj: string, tier: number, index: number) => JSON.stringify([mind, traj, tier, index]);
  const blocks = new Map<string, [string, string, number, number]>();
  for (const r of records) for (const p of r.parts) if (p.kind === "tier" && "sealed" in p) blocks.set(blockKey(r.mind_id, r.traj_id, p.tier, p.index), [r.mind_id, r.traj_id, p.tier, p.index]);
  const sealed = new Map<string, SealedFacts>();
  const keys = [...blocks.values()];
  (await db.tiers.bulkGet(keys)).forEach((row, i) => {
    const t = TierLine.safeParse(row);
    const k = keys[i];
    if (t.success && k) sealed.set(blockKey(...k), t.data);
  });
  // Every record here is one owner's (a run's rows, or one row).
  const owner = records[0]?.mind_id ?? "";
  return resolveRecords(records, { text: (h) => texts.get(h), sealed: (traj, tier, index) => sealed.get(blockKey(owner, traj, tier, index)) });
}

/** Every recorded call of a run, in order (none for a run from before recording, or an imported one). */
export async function contextsOfRun(db: ReverieDb, owner: string, runId: string): Promise<StoredSeen[]> {
  const rows = await db.contexts.where("[mind_id+run_id]").equals([owner, runId]).toArray();
  return (await resolve(db, parsed(rows))).sort((a, b) => a.call.iteration - b.call.iteration);
}

/** The recorded call that led to a step, if there is one; a delta is resolved through its run's records. */
export async function contextOf(db: ReverieDb, owner: string, stepId: string): Promise<StoredSeen | undefined> {
  const row = await db.contexts.get([owner, stepId]);
  const [record] = row ? parsed([row]) : [];
  if (!record) return undefined;
  if (record.base === undefined) return (await resolve(db, [record]))[0];
  const run = await db.contexts.where("[mind_id+run_id]").equals([owner, record.run_id]).toArray();
  return (await resolve(db, parsed(run))).find((s) => s.call.step_id === stepId);
}

/** The steps and sealed summaries a recorded call cites, read at once, as replay's lookups. */
export async function replayLookups(db: ReverieDb, owner: string, call: SeenCall): Promise<ReplayLookups> {
  const ids = [...new Set(call.parts.flatMap(shownSteps))];
  const rows = await db.steps.where("[mind_id+step_id]").anyOf(ids.map((id) => [owner, id])).toArray();
  const steps = new Map<string, Step>(parseRows(rows).steps.map((s) => [s.step_id, s]));
  const blocks = call.parts.flatMap((p) => (p.kind === "tier" ? [{ tier: p.tier, index: p.index }] : []));
  const tierRows = await db.tiers.bulkGet(blocks.map((b) => [owner, call.traj_id, b.tier, b.index] as [string, string, number, number]));
  const summaries = new Map<string, string>();
  tierRows.forEach((row, i) => {
    const b = blocks[i];
    if (row && b && typeof row.content === "string") summaries.set(`${b.tier}:${b.index}`, row.content);
  });
  return { step: (id) => steps.get(id), summary: (b) => summaries.get(`${b.tier}:${b.index}`) };
}
