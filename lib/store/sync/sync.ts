// What sync keeps in this browser, per mind (a settings row `sync:<mind id>`):
// the server's mind id and this browser's write token, how far the server has
// the log, when it last synced and why it last failed, and the links this
// browser made (their URLs live only here). And the engine's view of the
// mind's own rows, blobs and keys.
import { inviteStep } from "../../sync/inbox-steps";
import { Curation } from "../../shell/curation";
import { enter, waiting } from "../steps/door";
import { queuedCurations } from "../minds/curations";
import { queuedSelfChanges } from "../minds/self-changes";
import type { OwnerChange } from "../../sync/inbox-wire";
import { outgoingSettings } from "../../sync/client/state-book";
import { scrubber } from "../../sync/client/scrub";
import { curate } from "../minds/curations";
import { takeSettings } from "./state";
import { InviteRole } from "../../sharing/roles";
import Dexie from "dexie";
import * as z from "zod";
import { SyncQuota, type WireTrajectory } from "../../sync/wire";
import { type LinkInfo, type LinkKind } from "../../sharing/wire";
import { syncClient } from "../../sync/client/client";
import { activeInvite, EMPTY_SYNC, syncEngine, wakeSource, type LocalMind, type SyncEngine, type SyncRecord, type SyncStatePort } from "../../sync/client/engine";
import type { ReverieDb } from "../db/db";
import { getMind, listMinds, setRunning } from "../minds/minds";
import { watchTables } from "../db/watch";
import { getBlob, lastSeq, watchRows } from "../steps/steps";
import { passingOver, setAside } from "../steps/aside";
import { localState } from "./state";
import { systemClock } from "../../system/system";

const LocalLinkRow = z.object({
  id: z.string(),
  kind: z.enum(["snapshot", "live", "invite", "alert"]),
  /** An invite's role (absent: made before roles, a member's). */
  role: InviteRole.optional(),
  /** What its maker named it (an alert link: the steps it brings say it). */
  label: z.string().optional(),
  url: z.string(),
  at_seq: z.number().int().nullable(),
  created_at: z.string(),
  revoked_at: z.string().optional(),
});

const SyncRow = z.object({
  enabled: z.boolean().default(false),
  server_mind: z.string().optional(),
  write_token: z.string().optional(),
  last_seq: z.number().int().nonnegative().default(0),
  local_seq: z.number().int().nonnegative().optional(),
  last_sync: z.string().optional(),
  last_error: z.string().optional(),
  // A quota that does not parse (an older server's, say) is dropped, not the whole record.
  quota: SyncQuota.optional().catch(undefined),
  links: z.array(LocalLinkRow).default([]),
  // Keep-alive: the whole state syncs (lib/sync/client/state-sync.ts), with this tab's lease epoch.
  keep_alive: z.boolean().optional(),
  epoch: z.number().int().positive().optional(),
  lease_s: z.number().positive().optional(),
  state_error: z.string().optional(),
});

export const syncKey = (mindId: string) => `sync:${mindId}`;

/** A mind's sync state; null when it has never been synced (or its row does not parse, which is treated the same). */
export async function getSync(db: ReverieDb, mindId: string): Promise<SyncRecord | null> {
  const row = await db.settings.get(syncKey(mindId));
  if (!row) return null;
  const parsed = SyncRow.safeParse(row.value);
  return parsed.success ? parsed.data : null;
}

export function updateSync(db: ReverieDb, mindId: string, change: (r: SyncRecord) => SyncRecord): Promise<SyncRecord> {
  return db.transaction("rw", db.settings, async () => {
    const next = SyncRow.parse(change((await getSync(db, mindId)) ?? EMPTY_SYNC));
    // Undefined fields are dropped, not stored as undefined.
    await db.settings.put({ key: syncKey(mindId), value: JSON.parse(JSON.stringify(next)) });
    return next;
  });
}

export const syncState = (db: ReverieDb, mindId: string): SyncStatePort => ({
  get: () => getSync(db, mindId),
  update: (change) => updateSync(db, mindId, change),
});

/** Steps of the mind the server does not have yet: those after `afterSeq`, this browser's seq of the newest the server holds (SyncRecord.local_seq). */
export async function pendingSteps(db: ReverieDb, mindId: string, afterSeq: number): Promise<number> {
  const [all, aside] = await Promise.all([db.steps.where("[mind_id+seq]").between([mindId, afterSeq + 1], [mindId, Dexie.maxKey]).count(), setAside(db, mindId)]);
  // Rows a pull set aside never go up (their copies do).
  return all - (aside ? [...aside.seqs].filter((seq) => seq > afterSeq).length : 0);
}

/** The id of the newest step of the mind this browser holds (any trajectory): what a home letting the lease go names, to be waited for. */
export async function newestStep(db: ReverieDb, mindId: string): Promise<string | undefined> {
  return (await db.steps.where("[mind_id+seq]").between([mindId, Dexie.minKey], [mindId, Dexie.maxKey]).last())?.step_id;
}

export { inviteStep };

export function localMind(db: ReverieDb, mindId: string): LocalMind {
  return {
    name: async () => (await getMind(db, mindId))?.name ?? "mind",
    async rowsAfter(seq, limit) {
      // Rows a pull set aside never go up: their copies do, in the trajectory they were set aside in.
      const rows = await passingOver(db.steps.where("[mind_id+seq]").between([mindId, seq + 1], [mindId, Dexie.maxKey]), await setAside(db, mindId))
        .limit(limit)
        .toArray();
      return rows.map((r) => ({ seq: r.seq ?? 0, traj: r.traj_id, json: r.json }));
    },
    async trajectories() {
      const rows = await db.trajectories.where("mind_id").equals(mindId).toArray();
      return rows.map(
        (t): WireTrajectory => ({
          traj: t.traj_id,
          name: t.name.slice(0, 200),
          dir: t.dir,
          ...(t.parent_traj ? { parent_traj: t.parent_traj } : {}),
          ...(t.parent_step ? { parent_step: t.parent_step } : {}),
        }),
      );
    },
    blob: (name) => getBlob(db, mindId, name),
    seqOf: async (stepId) => (await db.steps.get({ mind_id: mindId, step_id: stepId }))?.seq,
    heldKeys: async () => (await listMinds(db)).flatMap((m) => (m.model.apiKey ? [m.model.apiKey] : [])),
    async take(item) {
      if (item.kind === "change") {
        // An operator's change to its memory: made now (a stopped mind) or queued for the running mind.
        const c = Curation.safeParse(item.change.body);
        return c.success && (await curate(db, mindId, c.data)).fresh;
      }
      // Its owner's settings, changed in a browser that did not hold it: kept as this browser's record (with this browser's key), before their config step.
      if (item.settings && !(await db.steps.get({ mind_id: mindId, step_id: item.step.step_id }))) await takeSettings(db, mindId, item.settings);
      const fresh = await enter(db, mindId, item.step);
      // A control is obeyed as the owner's Start and Stop are: the tab that runs the mind follows its `running` flag (and halts it on the server too).
      if (fresh && item.control) await setRunning(db, mindId, item.control.action === "resume");
      return fresh;
    },
    async handedIn() {
      const mind = await getMind(db, mindId);
      if (!mind) return [];
      const keys = (await listMinds(db)).flatMap((m) => (m.model.apiKey ? [m.model.apiKey] : []));
      const { shell: _shell, pacing_state: _pacing, ...settings } = mind;
      const steps = (await waiting(db, mindId)).flatMap(({ id, step }): OwnerChange[] =>
        step ? [{ id, kind: "step", step: { ...step }, ...(step.type === "config" ? { settings: outgoingSettings(settings, scrubber(keys)) } : {}) }] : [],
      );
      const curations = (await queuedCurations(db, mindId)).map((c): OwnerChange => ({ id: c.id, kind: "curation", change: c }));
      const texts = (await queuedSelfChanges(db, mindId)).map((c): OwnerChange => ({ id: c.id, kind: "self", change: c }));
      return [...steps, ...curations, ...texts];
    },
  };
}

// ---- in the page: one engine per mind per tab, and what the share bar does ----

export const syncLockName = (mindId: string) => `reverie-sync:${mindId}`;

export interface ShareActions {
  /** Turn sync on (creating the server's mind the first time) or off. */
  setEnabled(on: boolean): Promise<void>;
  /** Sync what is pending, then make a link; resolves with its URL (kept in this browser, newest first). */
  create(kind: LinkKind, opts?: { role?: InviteRole; label?: string }): Promise<string>;
  revoke(id: string): Promise<void>;
  /** The server's list: every link's state and, for invites, who has written through it. */
  serverLinks(): Promise<LinkInfo[]>;
}

interface BrowserSync {
  engine: SyncEngine;
  actions: ShareActions;
}

const perMind = new Map<string, BrowserSync>();

/** This tab's sync of one mind, over the page's own origin (the server the page came from). */
export function browserSync(db: ReverieDb, mindId: string): BrowserSync {
  const known = perMind.get(mindId);
  if (known) return known;
  const client = syncClient((input, init) => fetch(input, init));
  const state = syncState(db, mindId);
  const engine = syncEngine({ client, local: localMind(db, mindId), state, clock: systemClock, mindState: localState(db, mindId) });
  const credentials = async () => {
    const rec = await getSync(db, mindId);
    if (!rec?.server_mind || !rec.write_token) throw new Error("This mind is not synced yet.");
    return { mind: rec.server_mind, token: rec.write_token };
  };
  const actions: ShareActions = {
    async setEnabled(on) {
      if (on) await engine.enable();
      else await state.update((r) => ({ ...r, enabled: false }));
    },
    async create(kind, { role, label } = {}) {
      await engine.enable();
      await engine.push();
      const { mind, token } = await credentials();
      const rec = await getSync(db, mindId);
      const link = await client.createLink(mind, token, { kind, ...(kind === "snapshot" ? { at_seq: rec?.last_seq ?? 0 } : {}), ...(kind === "invite" && role ? { role } : {}), ...(label?.trim() ? { label: label.trim() } : {}) });
      const url = new URL(link.path, location.origin).toString();
      const made = { id: link.id, kind: link.kind, ...(link.role ? { role: link.role } : {}), ...(label?.trim() ? { label: label.trim() } : {}), url, at_seq: link.at_seq, created_at: new Date().toISOString() };
      await state.update((r) => ({ ...r, links: [made, ...r.links] }));
      return url;
    },
    async revoke(id) {
      const { mind, token } = await credentials();
      await client.revokeLink(mind, token, id);
      const at = new Date().toISOString();
      await state.update((r) => ({ ...r, links: r.links.map((l) => (l.id === id ? { ...l, revoked_at: l.revoked_at ?? at } : l)) }));
    },
    async serverLinks() {
      const { mind, token } = await credentials();
      return client.links(mind, token);
    },
  };
  const made = { engine, actions };
  perMind.set(mindId, made);
  return made;
}

/**
 * Keep one mind synced from this tab for as long as `signal` allows, but only
 * in one tab at a time (a Web Lock per mind; the next tab takes over when this
 * one goes). Wakes on the mind's new rows, on sync being switched on or an
 * invite made (from any tab), and when the browser comes back online.
 */
export function runSyncInThisTab(db: ReverieDb, mindId: string, signal: AbortSignal): void {
  // A mind that is not synced costs one watch of its settings row: no lock, no
  // watch of its steps (which would re-run on every step the mind writes).
  let running: AbortController | null = null;
  const stop = () => {
    running?.abort();
    running = null;
  };
  const sub = watchTables(db, ["settings"], () => getSync(db, mindId)).subscribe(
    (r) => {
      if (r?.enabled && !running && !signal.aborted) {
        running = new AbortController();
        syncWhileEnabled(db, mindId, running.signal);
      } else if (!r?.enabled) stop();
    },
    () => undefined,
  );
  signal.addEventListener(
    "abort",
    () => {
      sub.unsubscribe();
      stop();
    },
    { once: true },
  );
}

function syncWhileEnabled(db: ReverieDb, mindId: string, signal: AbortSignal): void {
  const { engine } = browserSync(db, mindId);
  const hold = async () => {
    const wakes = wakeSource();
    const unwatchRows = watchRows(
      await lastSeq(db, mindId),
      (seq) => db.steps.where("[mind_id+seq]").between([mindId, seq + 1], [mindId, Dexie.maxKey]).limit(500).toArray(),
      () => wakes.nudge(),
    );
    // Only a change that alters what the loop does wakes it: the loop's own status writes must not.
    let shape = "";
    const record = watchTables(db, ["settings"], () => getSync(db, mindId)).subscribe(
      (r) => {
        const next = `${r?.enabled}:${activeInvite(r)}`;
        if (next !== shape) wakes.nudge();
        shape = next;
      },
      () => undefined,
    );
    // Something handed in at the door (or a queued change) while another home holds the mind: forwarded at the next pass.
    let handed = 0;
    const door = watchTables(db, ["door", "settings"], async () => (await waiting(db, mindId)).length + (await queuedCurations(db, mindId)).length + (await queuedSelfChanges(db, mindId)).length).subscribe(
      (n) => {
        if (n > handed) wakes.nudge();
        handed = n;
      },
      () => undefined,
    );
    // The network back: a pass now, even in the middle of backing off after failures.
    const back = wakeSource();
    const online = () => {
      wakes.nudge();
      back.nudge();
    };
    addEventListener("online", online);
    try {
      await engine.run(signal, wakes, back);
    } finally {
      unwatchRows();
      record.unsubscribe();
      door.unsubscribe();
      removeEventListener("online", online);
    }
  };
  if (!("locks" in navigator)) void hold();
  else navigator.locks.request(syncLockName(mindId), { signal }, hold).catch(() => undefined);
}
