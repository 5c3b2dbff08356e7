// A running mind's state in this browser's IndexedDB: the tab's home of the
// MindState port (lib/mind/state/state.ts), and the one place a mind's step is
// written. Each `append` is one transaction (lib/store/db/raw-write) holding
// the steps, the usage row of each step that records a model call, and the
// rows of what those calls saw; everything else here reads.
import type { SeenCall } from "../../context/replay";
import { InvalidStepError, type MindState, type StateBatch } from "../../mind/state/state";
import type { ContextRow, ReverieDb, StepRow, UsageRow } from "../db/db";
import { writeRows, type TableWrite } from "../db/raw-write";
import { contextRows } from "../derived/contexts";
import { tierStore } from "../derived/tiers";
import { usageRow, usageSince } from "../derived/usage";
import { mindFiles } from "../minds/files";
import { getMind, savePacingState, saveShellState } from "../minds/minds";
import { tabInbound } from "./inbound";
import { blobPrefix, countSteps, findSteps, forkTrajectory, getBlob, putBlob, searchSteps, stepRow, stepsOfKind, tailSteps } from "../steps/steps";
import type { MindSettings } from "../../mind/settings/settings";

/** How many ids of its own writes the state remembers, at least (up to twice as many). */
const OWN_KEPT = 4096;

export interface IndexedDbStateOptions {
  /** What a call saw could not be encoded (it is stored whole instead): derived data, so reported, never thrown. */
  onRecordError?: (e: unknown) => void;
}

export function indexedDbMindState(db: ReverieDb, mindId: string, options: IndexedDbStateOptions = {}): MindState<MindSettings> {
  const seen = contextRows(db, mindId, options.onRecordError);
  // A trajectory's folder never changes once forked: each is read once.
  const prefixes = new Map<string, Promise<string>>();
  const blobName = async (trajId: string, name: string) => {
    let prefix = prefixes.get(trajId);
    if (!prefix) prefixes.set(trajId, (prefix = blobPrefix(db, mindId, trajId)));
    // Refs are `blobs/<name>`, relative to the trajectory's folder.
    return `${await prefix}${name.replace(/^blobs\//, "")}`;
  };
  // The steps this state wrote (the mind's own): every other step of the mind comes in through its inbound side.
  const own = new Set<string>();
  const wrote = (id: string) => {
    own.add(id);
    // Cut back in one go (a Set's oldest entries are its first): far more than a watch can be behind.
    if (own.size > 2 * OWN_KEPT) {
      const newest = [...own].slice(-OWN_KEPT);
      own.clear();
      for (const n of newest) own.add(n);
    }
  };
  return {
    mindId,
    inbound: tabInbound(db, mindId, (id) => own.has(id)),

    async append(batch: StateBatch) {
      const steps: StepRow[] = [];
      const usage: UsageRow[] = [];
      let refused: InvalidStepError | null = null;
      for (const { trajId, step } of batch.steps) {
        const row = stepRow(mindId, step, trajId);
        if (row instanceof InvalidStepError) {
          refused = new InvalidStepError(row.message, steps.length);
          break;
        }
        steps.push(row);
        wrote(step.step_id);
        const u = usageRow(mindId, step, trajId);
        if (u) usage.push(u);
      }
      // A record of a refused step is not kept: it would cite a step the log does not hold.
      const lost = new Set(batch.steps.slice(steps.length).map((s) => s.step.step_id));
      const calls: SeenCall[] = batch.seen.filter((c) => !lost.has(c.step_id));
      const contexts: ContextRow[] = calls.length ? await seen.rows(calls) : [];
      const writes: TableWrite[] = [
        { table: "steps", op: "add", rows: steps },
        { table: "usage", op: "put", rows: usage },
        { table: "contexts", op: "put", rows: contexts },
      ];
      try {
        await writeRows(db, writes);
      } catch (e) {
        seen.lost(calls);
        throw e;
      }
      if (refused) throw refused;
    },

    tail: (trajId, n) => tailSteps(db, mindId, n, trajId),
    count: (trajId) => countSteps(db, mindId, trajId),
    find: (idOrPrefix, limit) => findSteps(db, mindId, idOrPrefix, limit),
    search: (trajId, text, limit) => searchSteps(db, mindId, trajId, text, limit),
    ofKind: (trajId, kinds, limit, afterSeq) => stepsOfKind(db, mindId, trajId, kinds, limit, afterSeq),
    fork: (parentTrajId, child) => forkTrajectory(db, mindId, parentTrajId, child),
    putBlob: async (trajId, name, text) => putBlob(db, mindId, await blobName(trajId, name), text),
    blob: async (trajId, ref) => getBlob(db, mindId, await blobName(trajId, ref)),
    tiers: (trajId) => tierStore(db, mindId, trajId),
    spendSince: (sinceMs) => usageSince(db, mindId, sinceMs),
    files: mindFiles(db, mindId),
    record: async () => {
      const mind = await getMind(db, mindId);
      return mind ? { settings: mind, shell: mind.shell, pacing: mind.pacing_state } : undefined;
    },
    saveShellState: (state) => saveShellState(db, mindId, state),
    savePacing: (pacing) => savePacingState(db, mindId, pacing),
  };
}
