// What a home remembers of the mind's state it last synced (the book), and
// the pure rules that decide, from it, what changed on which side: a file's
// fingerprint, what a setting looks like once it leaves (no key, secrets
// scrubbed), and how a setting that comes back keeps this home's secrets.
import * as z from "zod";
import { PacingSnapshot, ShellState, type FileRecord } from "../../mind/state/state";
import { REDACTED } from "./scrub";

/** What this home knows of one workspace path as last synced. */
export const SyncedFile = z.object({
  /** The server's version this home's copy came from (or became). */
  version: z.number().int().positive(),
  /** The fingerprint of this home's copy then (fileSha), null for a directory. */
  sha: z.string().nullable(),
  kind: z.enum(["file", "dir", "symlink"]),
  mode: z.number(),
  size: z.number().int().nonnegative(),
  mtime: z.number(),
  /** The fingerprint of what was sent, when scrubbing changed it: the server holding that is the server holding this copy. */
  sent: z.string().optional(),
  /** This home removed the path, but the server's copy had changed since (its version then): nothing removed; a pull brings it back. */
  stale: z.number().int().positive().optional(),
});
export type SyncedFile = z.infer<typeof SyncedFile>;

/** A write of this home's copy of a path met another copy on the server: the server kept this one at `path` (its `version`) beside its own. */
export const KeptCopy = z.object({ path: z.string(), version: z.number().int().positive(), sha: z.string().nullable() });

export const StateBook = z.object({
  files: z.record(z.string(), SyncedFile).default({}),
  /** By the path this home's copy was written to: where the server kept it instead (until a pull settles the names here too). */
  kept: z.record(z.string(), KeptCopy).default({}),
  /** What this home last sent of the record (or last agreed with the server on), part by part. */
  sent: z
    .object({ settings: z.record(z.string(), z.unknown()).optional(), shell: ShellState.optional(), pacing: PacingSnapshot.optional() })
    .default({}),
  /** Sealed summaries the server is known to hold: `<traj> <tier> <index>`. */
  tiers: z.array(z.string()).default([]),
  /** Summaries the server did not seal yet (it lacked their steps), by key: how many pushes sent them. */
  waiting: z.record(z.string(), z.number().int().nonnegative()).default({}),
});
export type StateBook = z.infer<typeof StateBook>;
export const EMPTY_BOOK: StateBook = { files: {}, kept: {}, sent: {}, tiers: [], waiting: {} };

export const tierKey = (traj: string, tier: number, index: number) => `${traj} ${tier} ${index}`;

const utf8 = new TextEncoder();

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A workspace entry's fingerprint, as the server gives it: SHA-256 of a file's bytes or a symlink's target, null for a directory. */
export function fileSha(f: Pick<FileRecord, "kind" | "data" | "target">): Promise<string | null> {
  if (f.kind === "dir") return Promise.resolve(null);
  return sha256Hex(f.kind === "symlink" ? utf8.encode(f.target ?? "") : (f.data ?? new Uint8Array()));
}

export const fileSize = (f: Pick<FileRecord, "data" | "target">) => (f.data?.length ?? 0) + (f.target === undefined ? 0 : utf8.encode(f.target).length);

/** Nothing about the entry moved since it was booked (kind, mode, size, mtime): its bytes need no hashing to know. */
export const sameStamp = (f: FileRecord, e: Pick<SyncedFile, "kind" | "mode" | "size" | "mtime">) => f.kind === e.kind && f.mode === e.mode && fileSize(f) === e.size && f.mtime === e.mtime;

export const stampOf = (f: FileRecord) => ({ kind: f.kind, mode: f.mode, size: fileSize(f), mtime: f.mtime });

export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * A file's bytes as they may leave this home: text with its secrets scrubbed
 * (as steps are); binary as it is, unless it holds a key this browser holds
 * (then null: it stays here, reported).
 */
export function outgoingBytes(data: Uint8Array, scrub: (s: string) => string, heldKeys: readonly string[]): Uint8Array | null {
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    const latin1 = Array.from(data.subarray(0, data.length), (b) => String.fromCharCode(b)).join("");
    return heldKeys.some((k) => k.length >= 8 && latin1.includes(k)) ? null : data;
  }
  const clean = scrub(text);
  return clean === text ? data : utf8.encode(clean);
}

/** Every field named apiKey left out, at any depth. */
function withoutKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutKeys);
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (k === "apiKey" ? [] : [[k, withoutKeys(x)]])));
}

function scrubStrings(v: unknown, scrub: (s: string) => string): unknown {
  if (typeof v === "string") return scrub(v);
  if (Array.isArray(v)) return v.map((x) => scrubStrings(x, scrub));
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubStrings(x, scrub)]));
}

/** Settings as they leave this browser: no model key anywhere, every other string scrubbed. */
export const outgoingSettings = (settings: Record<string, unknown>, scrub: (s: string) => string) => scrubStrings(withoutKeys(settings), scrub) as Record<string, unknown>;

/** A shell state as it leaves: its variables' values scrubbed (a token exported in the shell stays here). */
export const outgoingShell = (shell: ShellState, scrub: (s: string) => string): ShellState => ({ cwd: shell.cwd, env: Object.fromEntries(Object.entries(shell.env).map(([k, v]) => [k, scrub(v)])) });

/**
 * A value from the server with this home's secrets put back: a string that is
 * this home's own once scrubbed is this home's own, and a key field this home
 * holds stays. Everything else is the server's.
 */
export function withLocalSecrets(server: unknown, local: unknown, scrub: (s: string) => string): unknown {
  if (typeof server === "string") return typeof local === "string" && server.includes(REDACTED) && scrub(local) === server ? local : server;
  if (Array.isArray(server)) return server.map((x, i) => withLocalSecrets(x, Array.isArray(local) ? local[i] : undefined, scrub));
  if (!server || typeof server !== "object") return server;
  const mine = local && typeof local === "object" && !Array.isArray(local) ? (local as Record<string, unknown>) : {};
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(server).map(([k, x]) => [k, withLocalSecrets(x, mine[k], scrub)]));
  if (mine.apiKey !== undefined) out.apiKey = mine.apiKey;
  return out;
}

/** Deep equality of JSON values (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The settings after a pull, three ways, field by field: one the server
 * holds as this home last sent it stays this home's (its changes since go out
 * with the next push); one the server changed and this home did not is the
 * server's, with this home's secrets and key kept; one changed on both sides
 * stays this home's (its human's latest choice, on record here as a config
 * step; the next push sends it). The mind's id is always this home's.
 */
export function mergeSettings(local: Record<string, unknown>, server: Record<string, unknown>, sent: Record<string, unknown>, scrub: (s: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...local };
  const mine = outgoingSettings(local, scrub);
  for (const k of new Set([...Object.keys(server), ...Object.keys(sent)])) {
    if (k === "id" || sameJson(server[k], sent[k]) || !sameJson(mine[k], sent[k])) continue;
    if (server[k] === undefined) delete out[k];
    else out[k] = withLocalSecrets(server[k], local[k], scrub);
  }
  return out;
}
