// Sync: a mind's steps and blobs to the server its page came from, and its
// guests' messages back. Append-only and in order: blobs before the steps that
// name them, steps in seq order in batches, each scrubbed of secrets; the
// server's last_seq says where to resume, so a pass cut off by going offline,
// a closed tab or a second tab picks up where the server is. Over ports: the
// local mind (lib/store/sync/sync.ts), the HTTP client, the saved state, a clock.
import type { Clock } from "../../mind/ports";
import { SYNC_LIMITS, type SyncQuota, type WireStep, type WireTrajectory } from "../wire";
import { inboxPasses, type InboxLocal } from "./inbox-passes";
import { can, DEFAULT_INVITE_ROLE, type InviteRole } from "../../sharing/roles";
import { ApiRequestError } from "./http";
import { type SyncClient } from "./client";
import { scrubber, scrubStepJson } from "./scrub";
import { pullMindState, pushMindState, type LocalState, type StateResult } from "./state-sync";

export interface LocalRow {
  seq: number;
  traj: string;
  json: string;
}

/** What the engine reads from, and writes to, the mind in this browser. */
export interface LocalMind extends InboxLocal {
  /** The mind's rows (every trajectory) after `seq`, oldest first. */
  rowsAfter(seq: number, limit: number): Promise<LocalRow[]>;
  trajectories(): Promise<WireTrajectory[]>;
  /** A blob by its name within the mind (`[<dir>/]blobs/<file>`). */
  blob(name: string): Promise<string | undefined>;
  /** Every model key this browser holds, to scrub from what leaves it. */
  heldKeys(): Promise<string[]>;
  /** This browser's seq of a step of the mind, by id (undefined: it has no such step). */
  seqOf(stepId: string): Promise<number | undefined>;
}

export interface LocalLink {
  id: string;
  kind: "snapshot" | "live" | "invite" | "alert";
  role?: InviteRole;
  label?: string;
  /** The link's whole URL: the server keeps only its token's hash, so this browser is the only place it lives. */
  url: string;
  at_seq: number | null;
  created_at: string;
  revoked_at?: string;
}

export interface SyncRecord {
  enabled: boolean;
  server_mind?: string;
  write_token?: string;
  /** The newest seq the server holds. */
  last_seq: number;
  /** This browser's seq of that step (its rows are numbered on their own; absent: the same as last_seq, as before the server could write). */
  local_seq?: number;
  last_sync?: string;
  last_error?: string;
  /** What the mind holds on the server against its limits, as the server last said. */
  quota?: SyncQuota;
  links: LocalLink[];
  /** Its human wants it to go on thinking on the server when no tab holds it: then its whole state (state-sync.ts) syncs too, not only its steps. */
  keep_alive?: boolean;
  /** This tab's lease epoch, while it holds the mind's lease: sent with every state write. */
  epoch?: number;
  /** The runner's lease length, as its server last said: a tab taking a kept-alive mind asks for the lease with it at once. */
  lease_s?: number;
  /** What the last state push left behind, and why (a file over the limit); absent when nothing was. */
  state_error?: string;
}

export interface SyncStatePort {
  get(): Promise<SyncRecord | null>;
  /** Read-modify-write in one transaction, so a tab's status update never drops another's new link. */
  update(change: (r: SyncRecord) => SyncRecord): Promise<SyncRecord>;
}

export interface SyncDeps {
  client: SyncClient;
  local: LocalMind;
  state: SyncStatePort;
  clock: Clock;
  /** The mind's state beyond its steps (workspace, tiers, record): synced too while keep-alive is on. */
  mindState?: LocalState;
}

export const EMPTY_SYNC: SyncRecord = { enabled: false, last_seq: 0, links: [] };

/** Inbox polling while an invite is live; the 2 s budget from a guest's send to the mind is most of this. */
export const INBOX_POLL_MS = 1000;
/** A wake waits this long for the rest of a burst of steps. */
export const DEBOUNCE_MS = 60;
/** With nothing to wake it, a pass runs this often anyway (a missed wake costs at most this). */
const IDLE_MS = 30_000;
const BACKOFF_MS = [1000, 2000, 5000, 10_000];
/** The server is ahead of this browser (another home wrote): look again this soon (the tab's pull is under way). */
const AHEAD_RETRY_MS = 1000;
/** Over a server quota, retrying soon only sends the same refused batch again: wait this long (or for the host to raise it). */
const QUOTA_BACKOFF_MS = 5 * 60_000;
const overQuota = (e: unknown) => e instanceof ApiRequestError && (e.code === "quota" || e.code === "rate_limited");
/** While keep-alive is on (or an operator's invite is live), the mind's state is pushed at most this often. */
export const STATE_PUSH_MS = 5000;
/** Room left in a request body for the envelope around the steps. */
const ENVELOPE_BYTES = 64 * 1024;

const utf8 = new TextEncoder();
const bytes = (s: string) => utf8.encode(s).length;
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Blob refs a step names: `<field>_ref` values of the form `blobs/<file>`. */
/** The server holds steps this browser has not seen (another home wrote them): pull them first. */
export class ServerAheadError extends Error {}

export function blobRefs(json: string): string[] {
  const step: unknown = JSON.parse(json);
  if (!step || typeof step !== "object") return [];
  return Object.entries(step).flatMap(([k, v]) => (k.endsWith("_ref") && typeof v === "string" && v.startsWith("blobs/") ? [v] : []));
}

/** A link through which something comes in (an invite, an alert link) is open: the inbox is read every INBOX_POLL_MS. */
export const activeInvite = (r: SyncRecord | null) => !!r?.enabled && r.links.some((l) => (l.kind === "invite" || l.kind === "alert") && !l.revoked_at);
/** A live invite whose holder reads and curates the mind's memories and goals (an operator's): they read them from the workspace as the server has it, so it must reach the server. */
export const curatingInvite = (r: SyncRecord | null) =>
  !!r?.enabled && r.links.some((l) => l.kind === "invite" && !l.revoked_at && can({ kind: "invite", role: l.role ?? DEFAULT_INVITE_ROLE }, "curate"));

export function syncEngine({ client, local, state, clock, mindState }: SyncDeps) {
  // Blobs never change, so one upload per name per engine is enough (a resend is harmless).
  const sentBlobs = new Set<string>();
  // Passes in one tab run one after another; two tabs may overlap, which the server's idempotency absorbs.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const next = chain.then(f, f);
    chain = next.catch(() => undefined);
    return next;
  };

  /** The server mind and write token, made by the first sync. */
  async function register(): Promise<{ mind: string; token: string }> {
    const rec = (await state.get()) ?? EMPTY_SYNC;
    if (rec.server_mind && rec.write_token) {
      if (!rec.enabled) await state.update((r) => ({ ...r, enabled: true }));
      return { mind: rec.server_mind, token: rec.write_token };
    }
    const created = await client.createMind((await local.name()).slice(0, 200) || "mind");
    await state.update((r) => ({ ...r, enabled: true, server_mind: created.mind, write_token: created.write_token, last_seq: 0 }));
    return { mind: created.mind, token: created.write_token };
  }

  /**
   * The local seq of the newest row the server holds. The record says, when
   * the server is where the record left it; else (an upload whose answer was
   * lost, a restore) the server's last step is looked for here. A server
   * ahead with a step this browser lacks was written by another home: this
   * browser must pull before it uploads again (ServerAheadError).
   */
  async function localCursor(server: { last_seq: number; last_step_id?: string }): Promise<number> {
    const rec = await state.get();
    if (rec && rec.last_seq === server.last_seq) return rec.local_seq ?? rec.last_seq;
    if (server.last_seq === 0) return 0;
    const at = server.last_step_id ? await local.seqOf(server.last_step_id) : undefined;
    if (at !== undefined) return at;
    // A server from before last_step_id was sent numbers as this browser does.
    if (!server.last_step_id) return server.last_seq;
    throw new ServerAheadError(`the server holds steps this browser does not (up to seq ${server.last_seq}): another home wrote them; they are pulled before anything more is uploaded`);
  }

  async function uploadPass(): Promise<number> {
    const { mind, token } = await register();
    const scrub = scrubber(await local.heldKeys());
    const trajs = new Map((await local.trajectories()).map((t) => [t.traj, t]));
    const sentTrajs = new Set<string>();
    let server = await client.state(mind, token);
    let serverLast = server.last_seq;
    let quota = server.quota;
    // Where this browser's rows stand: the local seq of the newest of its rows the server holds (uploads are numbered on from the server's own seq).
    let cursor = await localCursor(server);
    const epoch = (await state.get())?.epoch;
    let added = 0;
    const problems: string[] = [];
    for (;;) {
      const rows = await local.rowsAfter(cursor, SYNC_LIMITS.batchSteps);
      if (rows.length === 0) break;
      const steps: WireStep[] = [];
      let size = ENVELOPE_BYTES;
      let sentUpTo = cursor;
      for (const row of rows) {
        const json = scrubStepJson(row.json, scrub);
        const n = bytes(json) + row.traj.length + 40;
        if (n > SYNC_LIMITS.stepBytes) {
          // Kept in this browser, and reported: the server's copy of the life goes on without it.
          problems.push(`step at seq ${row.seq} is over ${SYNC_LIMITS.stepBytes} bytes and was not uploaded`);
          sentUpTo = row.seq;
          continue;
        }
        if (steps.length && size + n > SYNC_LIMITS.batchBytes) break;
        size += n;
        steps.push({ seq: serverLast + steps.length + 1, traj: row.traj, json });
        sentUpTo = row.seq;
      }
      if (steps.length === 0) {
        cursor = sentUpTo;
        continue;
      }
      for (const s of steps) {
        const dir = trajs.get(s.traj)?.dir ?? "";
        for (const ref of blobRefs(s.json)) {
          const name = dir ? `${dir}/${ref}` : ref;
          if (sentBlobs.has(name)) continue;
          const text = await local.blob(name);
          if (text === undefined) continue;
          const clean = scrub(text);
          if (bytes(clean) > SYNC_LIMITS.blobBytes) {
            problems.push(`blob ${name} is over ${SYNC_LIMITS.blobBytes} bytes and was not uploaded`);
            continue;
          }
          try {
            await client.putBlob(mind, token, name, clean, epoch);
          } catch (e) {
            // Already there under other bytes (scrubbed with other keys, by an earlier pass): blobs never change, the server's stands.
            if (!(e instanceof ApiRequestError && e.status === 409)) throw e;
          }
          sentBlobs.add(name);
        }
      }
      const newTrajs = [...new Set(steps.map((s) => s.traj))].filter((t) => !sentTrajs.has(t)).flatMap((t) => trajs.get(t) ?? []);
      const res = await client.upload(mind, token, { after: serverLast, steps, ...(newTrajs.length ? { trajectories: newTrajs.slice(0, 100) } : {}), ...(epoch !== undefined ? { epoch } : {}) });
      if (!res.ok) {
        // The server holds less than it said (another tab, a restore): find where its last step is here, and resend from there.
        server = await client.state(mind, token);
        serverLast = server.last_seq;
        cursor = await localCursor(server);
        continue;
      }
      for (const t of newTrajs) sentTrajs.add(t.traj);
      added += res.uploaded.added;
      serverLast = res.uploaded.last_seq;
      cursor = sentUpTo;
      quota = res.uploaded.quota ?? quota;
      const at = new Date(clock.now()).toISOString();
      await state.update((r) => ({ ...r, last_seq: serverLast, local_seq: cursor, last_sync: at, quota }));
    }
    // A pass that found nothing new and nothing wrong leaves the record alone (it runs every second while an invite is open).
    const error = problems.length ? problems.join("; ") : undefined;
    const before = await state.get();
    if (added > 0 || before?.last_error !== error || !before?.last_sync || before.last_seq !== serverLast || before.quota?.bytes !== quota?.bytes) {
      const at = new Date(clock.now()).toISOString();
      // The seq here goes with the server's (found by localCursor when the answer to an upload was lost): left behind,
      // a later pull would take steps the server holds for this browser's own and set them aside as a second copy.
      const moved = before?.last_seq !== serverLast;
      await state.update((r) => ({ ...r, last_seq: serverLast, ...(moved ? { local_seq: cursor } : {}), last_sync: at, last_error: error, quota }));
    }
    return added;
  }

  // What comes in from the server's inbox, and what this browser hands the mind while another home holds it (./inbox-passes.ts).
  const { inboxPass, forwardPass } = inboxPasses({ client, local, state, clock });

  /** The mind's state both ways, with the credentials and lease epoch the record holds. */
  const stateDeps = async () => {
    if (!mindState) throw new Error("This browser's sync has no access to the mind's state.");
    const { mind, token } = await register();
    const epoch = (await state.get())?.epoch;
    return { client, local: mindState, server: { mind, token, ...(epoch === undefined ? {} : { epoch }) }, clock };
  };
  async function statePass(): Promise<StateResult> {
    const result = await pushMindState(await stateDeps());
    const error = result.problems.length ? result.problems.join("; ") : undefined;
    if ((await state.get())?.state_error !== error) await state.update((r) => ({ ...r, state_error: error }));
    return result;
  }
  const pullPass = async () => pullMindState(await stateDeps());
  let statePushedAt = -Infinity;

  const reportError = (e: unknown) =>
    state.update((r) => ({ ...r, last_error: e instanceof ApiRequestError ? `${e.message} (${e.status} ${e.code})` : message(e) }));

  return {
    /** Turn sync on (the first time: create the server's mind and this browser's write token). */
    enable: () => serial(register),
    /** Upload what the server does not have yet; resolves with the steps it added. */
    push: () => serial(uploadPass),
    /** Fetch guests' messages and operators' control requests, and record the new ones as steps (obeying the controls); resolves with how many. */
    pullInbox: () => serial(inboxPass),
    /** Forward to the server what this browser handed the mind, while another home holds it; resolves with how many went. */
    forward: () => serial(forwardPass),
    /** Send the server the mind's state beyond its steps (state-sync.ts pushMindState). */
    pushState: () => serial(statePass),
    /** Take the mind's state the server changed (state-sync.ts pullMindState): for a handover, while no shell in this tab holds the mind. */
    pullState: () => serial(pullPass),

    /**
     * Keep the mind synced until `signal` aborts: a pass at each `wakes` nudge
     * (debounced), the inbox every INBOX_POLL_MS while an invite is live, and
     * after a failure, retries backing off to 10 s with the error saved.
     */
    async run(signal: AbortSignal, wakes: { next(signal: AbortSignal): Promise<void> }, backOnline?: { next(signal: AbortSignal): Promise<void> }): Promise<void> {
      /** A nudge from `source` or `ms`, whichever comes first; the loser is cancelled, so nothing piles up on `signal`. */
      const wakeOr = async (ms: number, source = wakes) => {
        const stop = new AbortController();
        const both = AbortSignal.any([signal, stop.signal]);
        await Promise.race([source.next(both), clock.sleep(ms, both)]);
        stop.abort();
      };
      let failures = 0;
      let quota = false;
      while (!signal.aborted) {
        const rec = await state.get().catch(() => null);
        if (!rec?.enabled) {
          await wakeOr(IDLE_MS);
          continue;
        }
        try {
          if (activeInvite(rec)) await serial(inboxPass);
          if (rec.keep_alive && rec.epoch === undefined) await serial(forwardPass);
          await serial(uploadPass);
          // Keep-alive: the server must be able to go on from here at any moment, so the state follows the steps (at most every STATE_PUSH_MS).
          // An operator's invite: their page shows the memories and goals from the server's copy of the workspace, so it follows too.
          if ((rec.keep_alive || curatingInvite(rec)) && mindState && clock.now() - statePushedAt >= STATE_PUSH_MS) {
            await serial(statePass);
            statePushedAt = clock.now();
          }
          failures = 0;
        } catch (e) {
          if (e instanceof ServerAheadError) {
            // Not a failure: this tab is taking the mind back and pulls what the server wrote; its new rows wake the next pass.
            await wakeOr(AHEAD_RETRY_MS);
            continue;
          }
          await reportError(e).catch(() => undefined);
          failures++;
          quota = overQuota(e);
        }
        if (signal.aborted) return;
        if (failures) {
          // Backing off: new steps wait for the retry rather than hammering a server that is down. The network
          // coming back (`backOnline`) ends the wait: what was written meanwhile goes up at once.
          const backoff = quota ? QUOTA_BACKOFF_MS : (BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1] ?? 10_000);
          if (!backOnline || quota) await clock.sleep(backoff, signal);
          else await wakeOr(backoff, backOnline);
          continue;
        }
        await wakeOr(activeInvite(rec) ? INBOX_POLL_MS : rec.keep_alive && mindState ? STATE_PUSH_MS : IDLE_MS);
        await clock.sleep(DEBOUNCE_MS, signal);
      }
    },
  };
}
export type SyncEngine = ReturnType<typeof syncEngine>;

/** Nudges for `run`: each `nudge()` wakes the one waiting `next` (a nudge with nobody waiting is kept for the next one). */
export function wakeSource() {
  let pending = false;
  let waiting: (() => void) | null = null;
  return {
    nudge() {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w();
      } else pending = true;
    },
    next(signal: AbortSignal): Promise<void> {
      if (pending || signal.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          if (waiting === done) waiting = null;
          signal.removeEventListener("abort", done);
          resolve();
        };
        waiting = done;
        signal.addEventListener("abort", done, { once: true });
      });
    },
  };
}
