import "server-only";
// The server's home: a mind hosted by a runner for a stretch of its life,
// over the SQL home of the MindState port, fenced by the lease epoch it was
// started under. What only the server has: the root trajectory its tab named,
// the model through the host's proxy or the mind's kept key, the network as
// the host bounds it, every wake stamped with its epoch, and idle waits kept
// as jobs in the wake queue instead of a sleeping loop (the mind is put away
// once its summaries and watchers have caught up).
import { startMind, type StartedMind } from "../../home/start";
import { nextAlarmDue } from "../../mind/alarms/alarms";
import type { Emit } from "../../mind/events";
import type { Clock, ModelPort } from "../../mind/ports";
import { parseMindSettings, type MindSettings } from "../../mind/settings/settings";
import type { MindState } from "../../mind/state/state";
import { systemIds } from "../../system/system";
import type { Sql } from "../db/sql";
import { sqlMindState } from "../state/sql-mind-state";
import type { HostBoundNetwork } from "./network";

/** How long a mind being put away waits for its summarizer to seal what is ready. */
const SUMMARIES_GRACE_MS = 30_000;

export interface HostedMindOptions {
  sql: Sql;
  mindId: string;
  /** The lease epoch this stretch runs under: every write carries it. */
  epoch: number;
  clock: Clock;
  /** The mind's model on the server, from its settings (the runner builds it: proxy or kept key). */
  model: (settings: MindSettings) => Promise<ModelPort>;
  /** The mind's network as the host bounds it (network.ts): the allow-list in force, and curl's and the commands' guarded network. */
  network: (settings: MindSettings) => HostBoundNetwork;
  /** When the wake was due (ms): lateness past it, not the wait itself, counts as being away. */
  dueAt: number;
  /** What the mind reports (its status; a config change that came in ends the stretch: the next one starts with it). */
  emit?: Emit;
  /** A write was refused because another home took the lease: this stretch is over. */
  onFenced: () => void;
  log?: (line: string) => void;
}

export interface HostedMind {
  readonly mindId: string;
  readonly epoch: number;
  /** Deliver what waits in its inbox (the runner's poll saw something, or the mind was just taken). */
  pull(): Promise<void>;
  /** Resolves when the stretch is over: `handedOffAt` is when the next wake is due (the mind waits), undefined when it was stopped. */
  readonly done: Promise<{ handedOffAt?: number }>;
  /** End the stretch now: a run under way is cut and recorded as stopped, the writes are flushed. */
  stop(): Promise<void>;
}

const isFenced = (e: unknown) => typeof e === "object" && e !== null && "code" in e && e.code === "fenced";

export async function hostMind(opts: HostedMindOptions): Promise<HostedMind> {
  const { sql, mindId, epoch, clock } = opts;
  // The mind's root trajectory is named by its tab (its id in the browser), not by the server's id for the mind: steps go where the tab's went.
  let root: Promise<string> | null = null;
  const rootOf = (): Promise<string> => (root ??= sqlState.record().then((r) => rootTrajectory(sql, mindId, r?.settings.id ?? mindId)));
  const sqlState = sqlMindState<MindSettings>(sql, mindId, parseMindSettings, { epoch, now: () => clock.now(), ...(opts.log ? { log: opts.log } : {}) });
  const state = fencedState(sqlState, opts.onFenced);
  let handedOffAt: number | undefined;
  let stopping = false;
  // Its events may come before startMind returns (a config step waiting at its start): they reach it through here.
  const held: { mind?: StartedMind; changed?: boolean } = {};
  const started = await startMind(
    {
      state,
      root: await rootOf(),
      clock,
      ids: systemIds,
      where: { home: "server", epoch },
      model: opts.model,
      network: (settings) => {
        const net = opts.network(settings);
        // No WebContainer on the server: node/npm/npx say there is no runtime, as in a browser without one.
        return { permissions: { ...settings.permissions, network: { ...settings.permissions.network, allow: net.allow } }, fetch: net.fetch, sandbox: net.sandbox };
      },
      options: { keepsWaits: true, readBeforeFirstWake: true },
    },
    (e) => {
      if (e.type === "handed-off") handedOffAt = e.wakeAt;
      // Its human changed its settings: this stretch ends, and the next (at once) starts with them.
      if (e.type === "settings-changed") {
        held.changed = true;
        void held.mind?.stop();
      }
      opts.emit?.(e);
    },
    { resume: { dueAt: opts.dueAt } },
  );
  const mind = (held.mind = started);
  if (held.changed) void mind.stop();
  const done = (async () => {
    await mind.done;
    // Handed off: let the summarizer and the watchers catch up (bounded), then put the mind away.
    if (!stopping) await Promise.race([mind.caughtUp(), new Promise((r) => setTimeout(r, SUMMARIES_GRACE_MS))]);
    await mind.stop();
    if (stopping) return {};
    // Its next wake: when its pacing says, or sooner when one of its alarms is due (the responder may have set one after the hand-off).
    const alarm = await nextAlarmDue(state, mind.root).catch(() => undefined);
    return { handedOffAt: alarm !== undefined && (handedOffAt === undefined || alarm < handedOffAt) ? alarm : handedOffAt };
  })();
  return {
    mindId,
    epoch,
    pull: () => state.inbound.pull(),
    done,
    async stop() {
      stopping = true;
      await mind.stop();
      await done.catch(() => undefined);
    },
  };
}

/** The SQL home, with every write watched for fencing (then the stretch ends: another home has the mind). */
function fencedState<T extends MindState<MindSettings>>(state: T, onFenced: () => void): T {
  const watch = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      if (isFenced(e)) onFenced();
      throw e;
    });
  return {
    ...state,
    mindId: state.mindId,
    append: (b) => watch(state.append(b)),
    putBlob: (t, n, x) => watch(state.putBlob(t, n, x)),
    files: { loadAll: () => state.files.loadAll(), loadUnder: (dir) => state.files.loadUnder(dir), save: (p, r) => watch(state.files.save(p, r)) },
    saveShellState: (s) => watch(state.saveShellState(s)),
    savePacing: (p) => watch(state.savePacing(p)),
    tiers: (trajId) => state.tiers(trajId),
  };
}

/** The mind's root trajectory on this server: the one its tab named (`tabId`, its id there), else the one without a parent, else the server's id. */
export async function rootTrajectory(sql: Sql, mindId: string, tabId: string): Promise<string> {
  const rows = await sql.query<{ traj: string }>(
    "SELECT traj FROM sync_trajectories WHERE mind = $1 AND (traj = $2 OR (parent_traj IS NULL AND dir = '')) ORDER BY traj = $2 DESC LIMIT 1",
    [mindId, tabId],
  );
  return rows[0]?.traj ?? mindId;
}
