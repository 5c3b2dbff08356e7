// The mind's state beyond its steps, both ways between this home and the
// server: the workspace, the sealed summaries, the settings (never a key),
// the shell's state and the pacing. Steps stay the sync engine's.
//
// A workspace path is versioned by the server. This home books, per path, the
// version its copy came from and the copy's fingerprint then (state-book.ts),
// so it knows which side changed: one side, that side's copy wins; both, both
// are kept (the other copy under a `.conflict-…` name, as the server names
// them). Nothing is silently lost. Over ports: the local mind's state
// (lib/store/sync/state.ts), the HTTP client, a clock.
import type { Clock } from "../../mind/ports";
import type { FileRecord, PacingSnapshot, ShellState } from "../../mind/state/state";
import { conflictPath, type FilePut, type FileRemove, type WireFileInfo, type WireTier } from "../state-wire";
import { SYNC_LIMITS } from "../wire";
import type { SyncClient } from "./client";
import { scrubber } from "./scrub";
import {
  fileSha,
  fileSize,
  fromBase64,
  mergeSettings,
  outgoingBytes,
  outgoingSettings,
  outgoingShell,
  sameJson,
  sameStamp,
  stampOf,
  type StateBook,
  tierKey,
  toBase64,
  withLocalSecrets,
} from "./state-book";

/** This home's record: its settings (without the shell and pacing, which are their own parts), and those. */
export interface LocalRecord {
  settings: Record<string, unknown>;
  shell?: ShellState;
  pacing?: PacingSnapshot;
}

/** What a workspace path looked like when a pull planned its change: it is applied only if it still does (null: absent). */
export type Expect = Map<string, ReturnType<typeof stampOf> | null>;

/** The mind's state in this home, as state sync reads and writes it. */
export interface LocalState {
  files(): Promise<FileRecord[]>;
  /** The mind's trajectories (its root and forked children). */
  trajectories(): Promise<string[]>;
  /** Every sealed summary of a trajectory, with who wrote it. */
  tiers(traj: string): Promise<WireTier[]>;
  /** Seal pulled summaries (each once), their seqs set from this home's own steps. */
  sealTiers(traj: string, tiers: WireTier[]): Promise<void>;
  record(): Promise<LocalRecord | undefined>;
  /** Replace the parts given. */
  saveRecord(change: Partial<LocalRecord>): Promise<void>;
  /** Every model key this home holds, to scrub from what leaves it. */
  heldKeys(): Promise<string[]>;
  book(): Promise<StateBook>;
  saveBook(book: StateBook): Promise<void>;
  /** Pulled files and the book after them, in one transaction; throws LocalChangedError (writing nothing) when a path is no longer as `expect` says. */
  applyFiles(change: { put: FileRecord[]; remove: string[]; expect: Expect; book: StateBook }): Promise<void>;
}

export class LocalChangedError extends Error {}

export interface StateDeps {
  client: SyncClient;
  local: LocalState;
  /** The server's mind, the write token and, once the mind is leased, this home's lease epoch (sent with every write). */
  server: { mind: string; token: string; epoch?: number };
  clock: Clock;
}

export interface Conflict {
  path: string;
  /** Where the other copy is kept. */
  kept_as: string;
}

export interface StateResult {
  /** Paths written (on the server for a push, here for a pull) and removed. */
  files: number;
  removed: number;
  conflicts: Conflict[];
  tiers: number;
  /** Parts of the record sent or taken. */
  record: ("settings" | "shell" | "pacing")[];
  /** What was left behind, and why (a file over the size limit, one holding a key). */
  problems: string[];
}

/** Room in a files write for the envelope around the files. */
const ENVELOPE_BYTES = 64 * 1024;

/** How many pushes send a summary the server cannot seal yet (it lacks its steps): about a minute at keep-alive's 5 s. */
const WAIT_PUSHES = 12;

const empty = (): StateResult => ({ files: 0, removed: 0, conflicts: [], tiers: 0, record: [], problems: [] });

// ---- push: this home → the server ----------------------------------------

/**
 * Send the server what changed here since the last sync: workspace entries
 * (at the version each came from), summaries it lacks, and the record's parts
 * that differ from what was last sent. Reads the workspace; writes only the book.
 */
export async function pushMindState({ client, local, server }: StateDeps): Promise<StateResult> {
  const result = empty();
  const held = await local.heldKeys();
  const scrub = scrubber(held);
  const book = await local.book();
  const epoch = server.epoch === undefined ? {} : { epoch: server.epoch };

  // Workspace: what changed here since it was booked.
  const files = await local.files();
  const here = new Set(files.map((f) => f.path));
  const puts: { put: FilePut; file: FileRecord; sha: string | null; sent?: string }[] = [];
  for (const f of files) {
    const e = book.files[f.path];
    if (e && sameStamp(f, e)) continue;
    const sha = await fileSha(f);
    if (e && e.kind === f.kind && e.mode === f.mode && e.sha === sha) {
      book.files[f.path] = { ...e, ...stampOf(f) };
      continue;
    }
    // Kept on the server already, beside the other copy.
    if (book.kept[f.path]?.sha === sha) continue;
    if (f.kind === "file" && fileSize(f) > SYNC_LIMITS.fileBytes) {
      result.problems.push(`${f.path} is over ${SYNC_LIMITS.fileBytes} bytes and stays in this browser`);
      continue;
    }
    const data = f.kind === "file" ? outgoingBytes(f.data ?? new Uint8Array(), scrub, held) : undefined;
    if (data === null) {
      result.problems.push(`${f.path} holds a model key and stays in this browser`);
      continue;
    }
    const sent = data && data !== f.data ? ((await fileSha({ kind: "file", data })) ?? undefined) : undefined;
    puts.push({
      file: f,
      sha,
      ...(sent ? { sent } : {}),
      put: { path: f.path, kind: f.kind, mode: f.mode, mtime: f.mtime, base_version: e?.version ?? null, ...(data ? { data_b64: toBase64(data) } : {}), ...(f.kind === "symlink" ? { target: f.target ?? "" } : {}) },
    });
  }
  const removes: FileRemove[] = Object.entries(book.files)
    .filter(([path, e]) => !here.has(path) && e.stale === undefined)
    .map(([path, e]) => ({ path, base_version: e.version }));

  // In writes that fit a request: removes first (a path may come back as another kind), then puts.
  const byPath = new Map(puts.map((p) => [p.put.path, p]));
  const batches: { put: FilePut[]; remove: FileRemove[] }[] = [];
  for (let i = 0; i < removes.length; i += SYNC_LIMITS.filesPerRequest * 5) batches.push({ put: [], remove: removes.slice(i, i + SYNC_LIMITS.filesPerRequest * 5) });
  let batch: FilePut[] = [];
  let size = ENVELOPE_BYTES;
  for (const { put } of puts) {
    const n = (put.data_b64?.length ?? 0) + put.path.length + 300;
    if (batch.length && (batch.length >= SYNC_LIMITS.filesPerRequest || size + n > SYNC_LIMITS.filesBodyBytes)) {
      batches.push({ put: batch, remove: [] });
      batch = [];
      size = ENVELOPE_BYTES;
    }
    batch.push(put);
    size += n;
  }
  if (batch.length) batches.push({ put: batch, remove: [] });

  for (const b of batches) {
    const res = await client.writeFiles(server.mind, server.token, { ...epoch, ...b });
    for (const r of res.results) {
      const p = byPath.get(r.path);
      const e = book.files[r.path];
      if (r.status === "removed") {
        delete book.files[r.path];
        delete book.kept[r.path];
        result.removed++;
      } else if (r.status === "stale") {
        if (e) book.files[r.path] = { ...e, stale: r.current };
      } else if (r.status === "written" && p) {
        book.files[r.path] = { version: r.version, sha: p.sha, ...stampOf(p.file), ...(p.sent ? { sent: p.sent } : {}) };
        delete book.kept[r.path];
        result.files++;
      } else if (r.status === "conflict" && p) {
        // The server kept this copy beside its own: booked, so it is not sent again; a pull settles the names here.
        book.kept[r.path] = { path: r.kept_as, version: r.version, sha: p.sha };
        result.conflicts.push({ path: r.path, kept_as: r.kept_as });
      }
    }
    // Booked as each write lands, so a push cut off later does not send it again.
    await local.saveBook(book);
  }

  // Summaries the server is not known to hold.
  const known = new Set(book.tiers);
  for (const traj of await local.trajectories()) {
    const missing = (await local.tiers(traj)).filter((t) => !known.has(tierKey(traj, t.tier, t.index)));
    for (let i = 0; i < missing.length; i += SYNC_LIMITS.tiersPerRequest) {
      const part = missing.slice(i, i + SYNC_LIMITS.tiersPerRequest);
      const res = await client.sealTiers(server.mind, server.token, { ...epoch, traj, tiers: part.map((t) => ({ ...t, content: scrub(t.content) })) });
      result.tiers += res.sealed;
      // One whose steps the server does not hold yet waits: sent again by later pushes, until its steps are there or it has
      // waited WAIT_PUSHES pushes (steps the server never took, set aside here): then the server's own summarizer seals that block.
      const waits = new Set(res.waiting.map((w) => tierKey(traj, w.tier, w.index)));
      for (const t of part) {
        const k = tierKey(traj, t.tier, t.index);
        const tries = waits.has(k) ? (book.waiting[k] ?? 0) + 1 : 0;
        if (tries > 0 && tries < WAIT_PUSHES) book.waiting[k] = tries;
        else {
          delete book.waiting[k];
          known.add(k);
        }
      }
    }
  }
  book.tiers = [...known];

  // The record's parts that differ from what was last sent.
  const record = await local.record();
  if (record) {
    const settings = outgoingSettings(record.settings, scrub);
    const shell = record.shell && outgoingShell(record.shell, scrub);
    const change = {
      ...(sameJson(settings, book.sent.settings) ? {} : { settings }),
      ...(shell && !sameJson(shell, book.sent.shell) ? { shell } : {}),
      ...(record.pacing && !sameJson(record.pacing, book.sent.pacing) ? { pacing: record.pacing } : {}),
    };
    if (Object.keys(change).length) {
      await client.putRecord(server.mind, server.token, { ...epoch, ...change });
      book.sent = { ...book.sent, ...change };
      result.record = Object.keys(change) as StateResult["record"];
    }
  }
  await local.saveBook(book);
  return result;
}

// ---- pull: the server → this home ----------------------------------------

/** How many times a pull starts over when the workspace changed under it. */
const PULL_TRIES = 3;

/**
 * Take what the server changed since this home last synced: workspace entries
 * at a newer version (both changed: both kept), entries it removed (unless
 * changed here), summaries missing here, and the record's parts it changed
 * (settings field by field, this home's key and secrets kept). Writes the
 * workspace: call it while no shell of this home holds the mind's files.
 */
export async function pullMindState(deps: StateDeps): Promise<StateResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pullOnce(deps);
    } catch (e) {
      if (!(e instanceof LocalChangedError) || attempt >= PULL_TRIES) throw e;
    }
  }
}

async function pullOnce({ client, local, server, clock }: StateDeps): Promise<StateResult> {
  const result = empty();
  const scrub = scrubber(await local.heldKeys());
  const summary = await client.mindState(server.mind, server.token);
  const book = await local.book();
  const mine = new Map((await local.files()).map((f) => [f.path, f]));
  const theirs = new Map(summary.files.map((f) => [f.path, f]));
  const expect: Expect = new Map();
  const put: FileRecord[] = [];
  const remove: string[] = [];
  const fetch: WireFileInfo[] = [];
  const taken = new Set([...mine.keys(), ...theirs.keys()]);
  const freeName = (path: string) => {
    for (let attempt = 1; ; attempt++) {
      const name = conflictPath(path, clock.now(), attempt);
      if (!taken.has(name)) {
        taken.add(name);
        return name;
      }
    }
  };
  const note = (path: string) => {
    if (expect.has(path)) return;
    const f = mine.get(path);
    expect.set(path, f ? stampOf(f) : null);
  };

  for (const s of summary.files) {
    const e = book.files[s.path];
    if (e && e.version === s.version) continue;
    const l = mine.get(s.path);
    const lsha = l ? await fileSha(l) : undefined;
    note(s.path);
    if (l && l.kind === s.kind && lsha === s.sha256) {
      book.files[s.path] = { version: s.version, sha: lsha ?? null, ...stampOf(l) };
      continue;
    }
    // The server holds what this home sent (scrubbed), rewritten by the other home with nothing changed.
    if (l && e?.sent && e.sent === s.sha256 && l.kind === s.kind && lsha === e.sha) {
      book.files[s.path] = { ...e, version: s.version };
      continue;
    }
    const changedHere = l !== undefined && (!e || e.kind !== l.kind || e.mode !== l.mode || e.sha !== lsha);
    if (l && changedHere) {
      const kept = book.kept[s.path]?.sha === lsha ? book.kept[s.path] : undefined;
      const name = kept?.path ?? freeName(s.path);
      note(name);
      put.push({ ...l, path: name });
      if (kept) book.files[name] = { version: kept.version, sha: lsha ?? null, ...stampOf({ ...l, path: name }) };
      result.conflicts.push({ path: s.path, kept_as: name });
    }
    delete book.kept[s.path];
    fetch.push(s);
  }

  // Entries the server removed: gone here too, unless changed here since (then the next push sends them back).
  for (const [path, e] of Object.entries(book.files)) {
    if (theirs.has(path)) continue;
    const l = mine.get(path);
    delete book.files[path];
    if (!l) continue;
    const unchanged = sameStamp(l, e) || (l.kind === e.kind && l.mode === e.mode && (await fileSha(l)) === e.sha);
    if (unchanged) remove.push(path);
  }
  // A directory goes only when nothing that stays here is under it.
  const gone = new Set(remove);
  const staying = [...[...mine.keys()].filter((p) => !gone.has(p)), ...put.map((p) => p.path)];
  const removing = remove.filter((d) => mine.get(d)?.kind !== "dir" || !staying.some((k) => k.startsWith(`${d}/`)));
  for (const path of removing) note(path);

  // The server's copies, whole.
  const dirs = fetch.filter((s) => s.kind === "dir");
  for (const d of dirs) {
    put.push({ path: d.path, kind: "dir", mode: d.mode, mtime: d.mtime });
    book.files[d.path] = { version: d.version, sha: null, kind: "dir", mode: d.mode, size: 0, mtime: d.mtime };
  }
  let ask = fetch.filter((s) => s.kind !== "dir").map((s) => s.path);
  while (ask.length) {
    const part = ask.slice(0, SYNC_LIMITS.filesPerRequest);
    const got = await client.readFiles(server.mind, server.token, part);
    for (const w of got.files) {
      const rec: FileRecord = { path: w.path, kind: w.kind, mode: w.mode, mtime: w.mtime, ...(w.kind === "file" ? { data: fromBase64(w.data_b64 ?? "") } : {}), ...(w.kind === "symlink" ? { target: w.target ?? "" } : {}) };
      put.push(rec);
      book.files[w.path] = { version: w.version, sha: await fileSha(rec), ...stampOf(rec) };
    }
    // Removed on the server since it listed them: the next pull sees them gone.
    ask = [...got.left, ...ask.slice(part.length)];
  }
  const seen = new Set<string>();
  const written = put.filter((p) => !seen.has(p.path) && seen.add(p.path));
  await local.applyFiles({ put: written, remove: removing, expect, book });
  result.files = fetch.length;
  result.removed = removing.length;

  // Summaries missing here.
  const trajs = new Map<string, { tier: number; index: number }[]>();
  for (const t of summary.tiers) trajs.set(t.traj, [...(trajs.get(t.traj) ?? []), { tier: t.tier, index: t.index }]);
  const known = new Set(book.tiers);
  for (const [traj, keys] of trajs) {
    const have = new Set((await local.tiers(traj)).map((t) => `${t.tier} ${t.index}`));
    const missing = keys.filter((k) => !have.has(`${k.tier} ${k.index}`));
    for (let i = 0; i < missing.length; i += SYNC_LIMITS.tiersPerRequest) {
      const tiers = await client.readTiers(server.mind, server.token, traj, missing.slice(i, i + SYNC_LIMITS.tiersPerRequest));
      await local.sealTiers(traj, tiers);
      result.tiers += tiers.length;
    }
    for (const k of keys) known.add(tierKey(traj, k.tier, k.index));
  }
  book.tiers = [...known];

  // The record's parts the server changed since this home last sent them.
  const record = await local.record();
  const change: Partial<LocalRecord> = {};
  if (record && summary.settings && book.sent.settings && !sameJson(summary.settings, book.sent.settings)) {
    change.settings = mergeSettings(record.settings, summary.settings, book.sent.settings, scrub);
    book.sent.settings = summary.settings;
  }
  if (summary.shell && !sameJson(summary.shell, book.sent.shell)) {
    change.shell = withLocalSecrets(summary.shell, record?.shell, scrub) as ShellState;
    book.sent.shell = summary.shell;
  }
  if (summary.pacing && !sameJson(summary.pacing, book.sent.pacing)) {
    change.pacing = summary.pacing;
    book.sent.pacing = summary.pacing;
  }
  if (Object.keys(change).length) {
    await local.saveRecord(change);
    result.record = Object.keys(change) as StateResult["record"];
  }
  await local.saveBook(book);
  return result;
}
