// How "what a call saw" is stored small. Call after call of a run shows nearly
// the same context: the same sealed summaries and elisions, the same pinned
// prompt, a verbatim tail that lost a few steps at its front and gained the
// newest at its end. So a record names the run's previous record as its
// `base` and keeps only what differs: runs of parts equal to the base's
// (`same`), a list part as ids dropped off the front and ids added at the end,
// and no instructions when they are the base's. A keyframe (a run's first
// record, every KEYFRAME_EVERY-th, after a gap) stands alone, so resolving
// one never walks a long chain. A sealed summary's part keeps only a hash of
// its ends and cites: the tiers row has them (the mind shows a sealed summary
// only when its ends are the stream's, and cites the row's), and the hash
// proves at resolution that they are the ones the call saw.
//
// Every form decodes back to exactly the SeenCall given (test/unit/
// context-records-delta.test.ts); rows of older builds (full parts) are
// keyframes already. Pure: lib/store/derived/contexts.ts reads and writes the rows.
import * as z from "zod";
import { SeenPart, SystemKind, type SeenCall } from "../../context/replay";

/** A chain never runs longer than this: the K-th record after a keyframe is one. */
export const KEYFRAME_EVERY = 16;

const count = z.number().int().min(0);
const ListKind = z.enum(["ancestors", "pinned", "verbatim"]);
type ListKind = z.infer<typeof ListKind>;
const isList = (kind: string): kind is ListKind => kind === "ancestors" || kind === "pinned" || kind === "verbatim";

/** The base's list part `at`, less `drop` ids at its front, plus `add` at its end. */
const ListDelta = z.object({ kind: ListKind, at: count, drop: count, add: z.array(z.string()), tokens: count });
/** Parts [at, at + n) of the base, unchanged. */
const SameParts = z.object({ kind: z.literal("same"), at: count, n: z.number().int().min(1) });
/** A sealed summary's part, its count, ends and cites those of the tiers row whose hash is `sealed`. */
const SealedTier = z.object({ kind: z.literal("tier"), tier: z.number().int(), index: z.number().int(), sealed: z.string(), tokens: count });

/** A part as stored: whole (every older row's), or one of the short forms above. */
export const StoredPart = z.union([SeenPart, ListDelta, SameParts, SealedTier]);
export type StoredPart = z.infer<typeof StoredPart>;

/** A row of the `contexts` table as read (lib/store/db/db.ts ContextRow). */
export const StoredCall = z.object({
  mind_id: z.string(),
  step_id: z.string(),
  run_id: z.string(),
  traj_id: z.string(),
  iteration: z.number().int(),
  self_name: z.string(),
  budget: z.number(),
  tokens: z.number(),
  before: z.number(),
  /** The record this one is a delta against; absent: a keyframe. */
  base: z.string().optional(),
  /** Absent: the base's. `file` and `sha`: the mind's own file a part came from, and its text's sha256 (absent in older rows, and for generated parts). */
  system: z.array(z.object({ kind: SystemKind, hash: z.string(), tokens: z.number(), file: z.string().optional(), sha: z.string().optional() })).optional(),
  parts: z.array(StoredPart),
});
export type StoredCall = z.infer<typeof StoredCall>;

type TierPart = Extract<SeenPart, { kind: "tier" }>;
type ListPart = Extract<SeenPart, { kind: ListKind }>;
const isListPart = (p: SeenPart): p is ListPart => isList(p.kind);

/** What a tiers row says of its block, as the hash covers it. */
export interface SealedFacts {
  steps: number;
  first_step: string;
  last_step: string;
  cites: readonly string[];
}

/** cyrb53: 53 bits of a string, fast and synchronous (the recorder runs between model calls; crypto.subtle is async). Not a defence against forgery: a check that the row is the one seen. */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** The hash a sealed tier part stores, of what the tiers row must say. */
export function sealedHash(facts: SealedFacts): string {
  return hash53(JSON.stringify([facts.steps, facts.first_step, facts.last_step, facts.cites]));
}

const tierFacts = (p: TierPart): SealedFacts => ({ steps: p.count, first_step: p.first, last_step: p.last, cites: p.cites });

/** A system part's file and sha, only those it has: a part recorded without them reads back without them. */
export function fileOf(s: { file?: string; sha?: string }): { file?: string; sha?: string } {
  return { ...(s.file !== undefined ? { file: s.file } : {}), ...(s.sha !== undefined ? { sha: s.sha } : {}) };
}

/** Structural equality of JSON-like values (parts are plain objects of strings, numbers and arrays). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** `next` as `prev` less `drop` ids at its front plus `add` at its end; null when it is not that (or when that would not be shorter). */
export function listDelta(prev: readonly string[], next: readonly string[]): { drop: number; add: string[] } | null {
  if (next.length === 0) return null;
  const drop = prev.indexOf(next[0] as string);
  if (drop < 0) return null;
  const kept = prev.length - drop;
  if (kept > next.length) return null;
  for (let k = 1; k < kept; k++) if (prev[drop + k] !== next[k]) return null;
  return { drop, add: next.slice(kept) };
}

/** Where a part of the base is found again: by kind, and a block's place for tiers and elisions. */
function partKey(p: SeenPart): string {
  if (p.kind === "tier") return `tier:${p.tier}:${p.index}`;
  if (p.kind === "elided") return `elided:${p.note}:${p.tier}:${p.index}`;
  return p.kind;
}

/** The run's record the next one is a delta against, as the recorder remembers it. */
export interface Previous {
  step_id: string;
  iteration: number;
  /** Records since the last keyframe (0: it is one). */
  depth: number;
  parts: readonly SeenPart[];
  system: SeenCall["system"];
}

export interface Encoded {
  base?: string;
  /** Whether the row stores its instructions (false: the base's). */
  system: boolean;
  parts: StoredPart[];
  /** What the recorder remembers of this record for the run's next. */
  previous: Previous;
}

/**
 * A call's parts as stored: against `prev` (the run's previous record) when
 * it may be a base, whole otherwise. O(parts + ids shown): never the history.
 * `hashOf` gives a sealed tier part's hash (the recorder caches them).
 */
export function encodeCall(call: SeenCall, prev: Previous | undefined, hashOf: (p: TierPart) => string = (p) => sealedHash(tierFacts(p))): Encoded {
  const asBase = prev && call.iteration > 1 && call.iteration > prev.iteration && prev.depth + 1 < KEYFRAME_EVERY ? prev : undefined;
  const whole = (p: SeenPart): StoredPart => (p.kind === "tier" ? { kind: "tier", tier: p.tier, index: p.index, sealed: hashOf(p), tokens: p.tokens } : p);
  const previous: Previous = { step_id: call.step_id, iteration: call.iteration, depth: asBase ? asBase.depth + 1 : 0, parts: call.parts, system: call.system };
  if (!asBase) return { system: true, parts: call.parts.map(whole), previous };

  const at = new Map<string, number>();
  asBase.parts.forEach((p, j) => {
    const k = partKey(p);
    if (!at.has(k)) at.set(k, j);
  });
  const parts: StoredPart[] = [];
  for (const p of call.parts) {
    const j = at.get(partKey(p));
    const was = j === undefined ? undefined : asBase.parts[j];
    if (j !== undefined && was && same(was, p)) {
      const last = parts[parts.length - 1];
      if (last?.kind === "same" && last.at + last.n === j) last.n++;
      else parts.push({ kind: "same", at: j, n: 1 });
      continue;
    }
    if (j !== undefined && was && isListPart(p) && isListPart(was) && was.kind === p.kind) {
      const d = listDelta(was.step_ids, p.step_ids);
      if (d) {
        parts.push({ kind: p.kind, at: j, drop: d.drop, add: d.add, tokens: p.tokens });
        continue;
      }
    }
    parts.push(whole(p));
  }
  return { base: asBase.step_id, system: !same(asBase.system, call.system), parts, previous };
}

/** A part that could not be rebuilt, and why (a later delta inherits the reason). */
interface Lost {
  lost: string;
}
type Resolved = SeenPart | Lost;
const isLost = (p: Resolved): p is Lost => "lost" in p;

/** A record's call rebuilt, with the holes a later delta may inherit. */
interface Rebuilt {
  call: Omit<SeenCall, "parts">;
  parts: Resolved[];
  missing: string[];
  /** The instructions' texts that are gone (a delta that keeps its base's instructions lacks them too). */
  lostTexts: string[];
}

export interface ResolveLookups {
  /** An instructions' part's text by hash. */
  text(hash: string): string | undefined;
  /** What the tiers row of a block of a trajectory says (undefined: no such row). */
  sealed(trajId: string, tier: number, index: number): SealedFacts | undefined;
}

const id8 = (id: string) => id.slice(0, 8);

/**
 * Records rebuilt into the calls they were made from, each with what could
 * not be found (instruction texts, a base that is gone or damaged, a tiers
 * row that is not the one seen). `records` must hold the bases (a run's rows
 * hold theirs); any order.
 */
export function resolveRecords(records: readonly StoredCall[], look: ResolveLookups): { call: SeenCall; missing: string[] }[] {
  const byId = new Map(records.map((r) => [r.step_id, r]));
  const done = new Map<string, Rebuilt>();
  const rebuild = (r: StoredCall, depth: number): Rebuilt => {
    const known = done.get(r.step_id);
    if (known) return known;
    const missing = new Set<string>();
    let base: Rebuilt | undefined;
    if (r.base !== undefined) {
      const row = byId.get(r.base);
      // A chain longer than a keyframe allows is a damaged one (or a loop): stop there.
      if (row && depth < 2 * KEYFRAME_EVERY && row.step_id !== r.step_id) base = rebuild(row, depth + 1);
      else missing.add(`the record before it (${id8(r.base)})`);
    }
    const fromBase = (j: number): Resolved => {
      const p = base?.parts[j];
      if (!p) return { lost: base ? `part ${j + 1} of the record before it` : r.base === undefined ? "a part of a record before it that it does not name" : `the record before it (${id8(r.base)})` };
      return p;
    };
    const parts: Resolved[] = [];
    for (const p of r.parts) {
      if ("n" in p) {
        for (let j = p.at; j < p.at + p.n; j++) parts.push(fromBase(j));
      } else if ("drop" in p) {
        const was = fromBase(p.at);
        if (isLost(was)) parts.push(was);
        else if (!isListPart(was) || was.kind !== p.kind) parts.push({ lost: `part ${p.at + 1} of the record before it` });
        else parts.push({ kind: p.kind, step_ids: [...was.step_ids.slice(p.drop), ...p.add], tokens: p.tokens });
      } else if ("sealed" in p) {
        const facts = look.sealed(r.traj_id, p.tier, p.index);
        if (facts && sealedHash(facts) === p.sealed) parts.push({ kind: "tier", tier: p.tier, index: p.index, count: facts.steps, first: facts.first_step, last: facts.last_step, cites: [...facts.cites], tokens: p.tokens });
        else parts.push({ lost: `summary tier ${p.tier} #${p.index}${facts ? " (not the one this call saw)" : ""}` });
      } else parts.push(p);
    }
    for (const p of parts) if (isLost(p)) missing.add(p.lost);

    let system: SeenCall["system"] = [];
    const lostTexts: string[] = [];
    if (r.system) {
      system = r.system.map((s) => {
        const text = look.text(s.hash);
        if (text === undefined) lostTexts.push(`the ${s.kind} text`);
        return { kind: s.kind, text: text ?? "", tokens: s.tokens, ...fileOf(s) };
      });
    } else if (base) {
      system = base.call.system;
      lostTexts.push(...base.lostTexts);
    } else lostTexts.push("the instructions");
    const { mind_id: _m, base: _b, system: _s, parts: _p, ...fields } = r;
    // The texts first, as the store always listed them.
    const out: Rebuilt = { call: { ...fields, system }, parts, missing: [...new Set([...lostTexts, ...missing])], lostTexts };
    done.set(r.step_id, out);
    return out;
  };
  return records.map((r) => {
    const { call, parts, missing } = rebuild(r, 0);
    return { call: { ...call, parts: parts.filter((p): p is SeenPart => !isLost(p)) }, missing };
  });
}
