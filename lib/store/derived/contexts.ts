// What each model call saw (the `contexts` table), and what it takes to
// rebuild the messages from it: the steps and sealed summaries it cites. The
// instructions change rarely and are long, so each of their parts is stored
// once, content-addressed (`seen-text:<sha-256>` in `settings`), and a call's
// row names it by hash. A call's row is most often a delta against the run's
// previous one (lib/store/derived/seen-delta.ts): the encoder remembers each run's
// last record, and reading resolves a run's rows together, so what leaves
// this file is always the whole SeenCall. Rows read back are parsed; a
// damaged one is skipped, and a delta whose base is gone says so in `missing`.
import { TierLine } from "../../context/rollups";
import { shownSteps, type ReplayLookups, type SeenCall, type SeenPart } from "../../context/replay";
import type { Step } from "../../trajectory/schema";
import type { ContextRow, ReverieDb } from "../db/db";
import { encodeCall, fileOf, resolveRecords, sealedHash, StoredCall, type Encoded, type Previous, type SealedFacts } from "./seen-delta";
import { parseRows } from "../steps/steps";

const textKey = (hash: string) => `seen-text:${hash}`;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** How many distinct instruction texts an encoder remembers having hashed and stored. */
const KNOWN_TEXTS = 64;

/** Runs whose last record the encoder remembers as the base of their next (a mind runs a few at once: its inner life, the responder, nested runs). */
const RUNS_KEPT = 16;
/** Sealed tier parts whose hash is remembered: a keyframe shows a few dozen, the same ones run after run. */
const TIER_HASHES_KEPT = 1024;

type TierPart = Extract<SeenPart, { kind: "tier" }>;

/** How a mind's records become rows: encoded against their run's previous record, their instructions stored once by hash. */
export interface ContextRows {
  /**
   * The rows of `calls`, to go in the transaction that writes their steps.
   * Instruction texts not stored yet are written first, in a transaction of
   * their own (rarely: the instructions change between wakes at most), so a
   * row never names a text that is not there.
   */
  rows(calls: readonly SeenCall[]): Promise<ContextRow[]>;
  /** The rows of `calls` were not stored: their runs' next records are keyframes (a delta against a lost base could not be resolved). */
  lost(calls: readonly SeenCall[]): void;
}

/** The encoder of one mind's records. An encoding that fails is stored whole (a keyframe) and reported to `onError`, never thrown. */
export function contextRows(db: ReverieDb, mindId: string, onError: (e: unknown) => void = () => {}): ContextRows {
  // Text → hash of the texts stored already: the same instructions, wake after wake, are hashed and written once.
  const stored = new Map<string, string>();
  // Each run's last record, the base of its next; and the hashes of sealed tier parts seen lately.
  const runs = new Map<string, Previous>();
  const tierHashes = new Map<string, { part: TierPart; hash: string }>();
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
  const remember = (text: string, hash: string) => {
    if (stored.size >= KNOWN_TEXTS && !stored.has(text)) stored.delete(stored.keys().next().value as string);
    stored.set(text, hash);
  };
  return {
    async rows(calls) {
      const out: ContextRow[] = [];
      const fresh = new Map<string, string>();
      for (const call of calls) {
        const enc = encode(call);
        if (!enc.system) {
          out.push(rowOf(call, enc));
          continue;
        }
        const system = [];
        for (const s of call.system) {
          let hash = stored.get(s.text) ?? fresh.get(s.text);
          if (!hash) fresh.set(s.text, (hash = await sha256(s.text)));
          system.push({ kind: s.kind, hash, tokens: s.tokens, ...fileOf(s) });
        }
        out.push(rowOf(call, enc, system));
      }
      if (fresh.size) {
        await db.settings.bulkPut([...fresh].map(([text, hash]) => ({ key: textKey(hash), value: text })));
        for (const [text, hash] of fresh) remember(text, hash);
      }
      return out;
    },
    lost(calls) {
      for (const c of calls) runs.delete(c.run_id);
    },
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
