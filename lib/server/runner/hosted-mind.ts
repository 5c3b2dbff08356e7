import "server-only";
// One mind hosted by a runner for a stretch of its life: lib/mind's own loop
// (the same Mind, thinkers, pacing, guards, budget and summarizer as in a
// tab) over the SQL home of the MindState port, fenced by the lease epoch it
// was started under, with just-bash over its synced workspace. The wiring is
// the tab's (workers/host.ts) with the server's pieces: home "server" on
// every wake step, the model through the host's proxy or the mind's kept key,
// and the network as the host bounds it.
//
// An idle mind is not kept in memory: when its inner life is about to wait,
// the wait is handed to the runner (the wake queue holds it as a job) and the
// mind is put away once its replies and summaries are written.
import { budgetProblems } from "../../mind/budget/budget";
import { wireMind } from "../../home/wire-mind";
import { nextAlarmDue } from "../../mind/alarms/alarms";
import type { Clock, ModelPort } from "../../mind/ports";
import { parseMindSettings, type MindSettings } from "../../mind/settings/settings";
import type { MindState } from "../../mind/state/state";
import type { MindStatus } from "../../protocol";
import { justBashSandbox } from "../../shell/just-bash-sandbox";
import { openPersistentFs } from "../../shell/persistent-fs";
import { listSkills } from "../../shell/skills";
import { applyCuration, sandboxCurationFs, type Curation } from "../../shell/curation";
import type { Step } from "../../trajectory/schema";
import type { Sql } from "../db/sql";
import { sqlMindState } from "../state/sql-mind-state";
import type { HostBoundNetwork } from "./network";
import { SelfLedger } from "../../home/self-ledger";
import { fsSelfFiles } from "../../shell/self/files";
import { scratchSandbox } from "../../shell/scratch-fs";

const ids = { uuid: () => crypto.randomUUID() };
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
  onStatus?: (status: MindStatus) => void;
  /** A write was refused because another home took the lease: this stretch is over. */
  onFenced: () => void;
}

export interface HostedMind {
  readonly mindId: string;
  readonly epoch: number;
  /** A step another writer of this process appended for the mind (a guest's message the runner delivered). */
  notify(step: Step): void;
  /** Append steps as the mind's home (fenced), e.g. delivered messages; they reach the loop too. */
  deliver(steps: Step[]): Promise<void>;
  /** Make people's changes to its memories and goals in its workspace (saved): the steps that record them, to deliver. */
  curate(changes: Curation[]): Promise<Step[]>;
  /** Resolves when the stretch is over: `handedOff` is when the next wake is due (the mind waits), undefined when it was stopped. */
  readonly done: Promise<{ handedOffAt?: number }>;
  /** End the stretch now: a run under way is cut and recorded as stopped, the writes are flushed. */
  stop(): Promise<void>;
}

const isFenced = (e: unknown) => typeof e === "object" && e !== null && (e as { code?: unknown }).code === "fenced";

/** The SQL home, with every write watched for fencing (then the stretch ends: another home has the mind). */
function fencedState(state: MindState<MindSettings>, onFenced: () => void): MindState<MindSettings> {
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
    files: { loadAll: () => state.files.loadAll(), save: (p, r) => watch(state.files.save(p, r)) },
    saveShellState: (s) => watch(state.saveShellState(s)),
    savePacing: (p) => watch(state.savePacing(p)),
    tiers: (trajId) => state.tiers(trajId),
  };
}

export async function hostMind(opts: HostedMindOptions): Promise<HostedMind> {
  const { sql, mindId, epoch, clock } = opts;
  const onRecordError = (e: unknown) => console.warn(`runner: ${mindId}: could not record what a model call saw: ${e instanceof Error ? e.message : String(e)}`);
  const state = fencedState(sqlMindState(sql, mindId, parseMindSettings, { epoch }), opts.onFenced);
  const record = await state.record();
  if (!record) throw new Error(`mind ${mindId} has no settings on this server (its tab has not synced them), so it cannot run here`);
  const mind = record.settings;
  // The mind's root trajectory is named by its tab (its id in the browser), not by the server's id for the mind: steps go where the tab's went.
  const root = await rootTrajectory(sql, mindId, mind.id);
  const capProblems = budgetProblems(mind.budget);
  if (!mind.budget || capProblems.length) throw new Error(`${mind.name} has no spend caps, so it does not run: its human sets an hourly and a daily cap in Settings. (${capProblems.join(" ")})`);
  const model = await opts.model(mind);
  const summaryModel = mind.summary_model ? await opts.model({ ...mind, model: { ...mind.model, model: mind.summary_model, price: undefined } }) : undefined;
  const net = opts.network(mind);
  const permissions = { ...mind.permissions, network: { ...mind.permissions.network, allow: net.allow } };
  const { fs, flush } = await openPersistentFs(state.files, { maxBytes: permissions.limits.max_workspace_bytes });
  // No WebContainer on the server: node/npm/npx say there is no runtime, as in a browser without one.
  const shell = justBashSandbox({ fs, flush, permissions, ids, clock, fetch: net.fetch, network: net.sandbox });
  // Its own texts (self/), as its trajectory records them (set up here if it never ran anywhere yet).
  const self = await SelfLedger.load({ state, root, files: fsSelfFiles(fs, flush), persona: mind.persona, clock, ids });
  let handedOffAt: number | undefined;
  const { loop, log, stored } = wireMind({
    state,
    record,
    caps: mind.budget,
    root,
    clock,
    ids,
    model,
    summaryModel,
    shell,
    self,
    // A try's sandbox: over a scratch copy of the workspace as it is now (never saved), on the same bounded network.
    scratchShell: () => scratchSandbox(fs, { permissions, ids, clock, fetch: net.fetch, network: net.sandbox }),
    skills: () => listSkills(fs),
    permissions,
    where: { home: "server", epoch },
    // An idle mind waits as a job in the wake queue, not as a sleeping loop in this process.
    handOffWait: ({ wakeAt }) => {
      handedOffAt = wakeAt;
      return true;
    },
    onStatus: opts.onStatus ?? (() => undefined),
    readBeforeFirstWake: true,
    onRecordError,
  });

  let stopping = false;
  const done = (async () => {
    await loop.start({ resume: { dueAt: opts.dueAt } });
    // Handed off: let the summarizer seal what is ready (bounded), then put the mind away.
    if (!stopping) await Promise.race([loop.caughtUp(), new Promise((r) => setTimeout(r, SUMMARIES_GRACE_MS))]);
    await loop.stop();
    await stored();
    if (stopping) return {};
    // Its next wake: when its pacing says, or sooner when one of its alarms is due (the responder may have set one after the hand-off).
    const alarm = await nextAlarmDue(state, root).catch(() => undefined);
    return { handedOffAt: alarm !== undefined && (handedOffAt === undefined || alarm < handedOffAt) ? alarm : handedOffAt };
  })();

  return {
    mindId,
    epoch,
    notify: (step) => loop.notify(step),
    async deliver(steps) {
      if (!steps.length) return;
      await state.append({ steps: steps.map((step) => ({ trajId: root, step })), seen: [] });
      for (const s of steps) {
        log.ingest(s);
        loop.notify(s);
      }
    },
    async curate(changes) {
      const steps: Step[] = [];
      for (const c of changes) steps.push(await applyCuration(sandboxCurationFs(fs), c, clock.now(), ids));
      await flush();
      return steps;
    },
    done,
    async stop() {
      stopping = true;
      await loop.stop();
      await done.catch(() => undefined);
    },
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
