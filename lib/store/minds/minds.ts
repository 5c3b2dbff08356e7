// Minds in this browser: their settings (mutable, the human's) and the start
// of their trajectory (append-only, in steps).
import * as z from "zod";
import { ModelSettings } from "../../mind/settings/model";
import { DEFAULT_PACING } from "../../mind/pacing/pacing";
import { type PacingSnapshot, type ShellState } from "../../mind/state/state";
import { recoverAtStart } from "../../mind/recovery";
import { DEFAULT_PERMISSIONS, Permissions } from "../../trajectory/permissions";
import { BudgetConfig, formatTs, PacingConfig, stampStep, type Step } from "../../trajectory/schema";
import { DEFAULT_BUDGET } from "../../mind/budget/budget";
import type { ReverieDb } from "../db/db";
import { getOwner, listOwners } from "./owners";
import { appendStep, tailSteps } from "../steps/steps";
import { enter } from "../steps/door";

// The record's schema is shared with the server's home (./mind-record.ts).
import { configStep, MindSettings } from "../../mind/settings/settings";
import { systemIds } from "../../system/system";

export const NewMindInput = z.object({
  name: z.string().trim().min(1, "A mind needs a name.").max(60, "Keep the name under 60 characters."),
  persona: z.string().max(20_000, "Keep the persona under 20,000 characters."),
  model: ModelSettings,
  permissions: Permissions.default(DEFAULT_PERMISSIONS),
  /** The form always sends the caps its human set (a non-positive one is refused); callers that leave them out get the offered defaults. */
  budget: BudgetConfig.default(DEFAULT_BUDGET),
  /** How it backs off when idle; left out, Headlong's (5 s, doubling every 3 quiet wakes, up to 300 s). */
  pacing: PacingConfig.refine((p) => p.cap_s >= p.base_s, "The longest pause cannot be shorter than the first one.").default(DEFAULT_PACING),
  /** Its opening thought (the form draws one from the persona): written as a `thought` step from `seed` before its first wake. Blank: none. */
  first_thought: z.string().trim().max(4_000, "Keep the first thought under 4,000 characters.").optional(),
});
export type NewMindInput = z.infer<typeof NewMindInput>;

/** Parse a stored mind; a row that does not parse is reported, not cast. */
export function parseMind(json: unknown): MindSettings | null {
  const r = MindSettings.safeParse(json);
  return r.success ? r.data : null;
}


export const SettingsInput = z.object({
  model: ModelSettings,
  pacing: PacingConfig,
  max_iterations: z.number().int().min(1).max(100),
  /** Left out: the mind keeps the permissions it has. */
  permissions: Permissions.optional(),
  /** Left out: the mind keeps the caps it has. */
  budget: BudgetConfig.optional(),
  /** Left out: kept; "" (blank): summaries by the mind's own model. */
  summary_model: z.string().trim().optional(),
});
export type SettingsInput = z.infer<typeof SettingsInput>;

/**
 * The human changes a mind's model, pacing, limits or permissions: saved, and recorded as
 * a `config` step in the same transaction, so the log says when and what (handed in at its
 * door: a running mind's writer takes it, and it starts again with them).
 */
export async function updateSettings(db: ReverieDb, id: string, input: z.input<typeof SettingsInput>, now = Date.now()): Promise<MindSettings> {
  const settings = SettingsInput.parse(input);
  return db.transaction("rw", [db.minds, db.steps, db.door], async () => {
    const mind = await getMind(db, id);
    if (!mind) throw new Error(`No mind ${id} in this browser.`);
    const next: MindSettings = { ...mind, ...settings, permissions: settings.permissions ?? mind.permissions, budget: settings.budget ?? mind.budget };
    const summaryModel = settings.summary_model === undefined ? mind.summary_model : settings.summary_model || undefined;
    if (summaryModel) next.summary_model = summaryModel;
    else delete next.summary_model;
    await db.minds.put({ id, json: next });
    await enter(db, id, configStep(next, now, systemIds.uuid()), now);
    return next;
  });
}

export async function createMind(db: ReverieDb, input: z.input<typeof NewMindInput>, now = Date.now()): Promise<MindSettings> {
  const id = systemIds.uuid();
  const { first_thought, ...settings } = NewMindInput.parse(input);
  const mind: MindSettings = MindSettings.parse({ id, ...settings, created_at: formatTs(now), running: true });
  const ts = formatTs(now);
  const first: Step = { type: "trajectory", step_id: id, ts, name: mind.name, source: "system" };
  const config = configStep(mind, now, systemIds.uuid());
  // After the config, so the log reads: who it is, how it is set up, what it thought first.
  const seed = first_thought ? stampStep({ type: "thought", content: first_thought, source: "seed" }, { id: systemIds.uuid(), now }) : undefined;
  await db.transaction("rw", db.minds, db.steps, db.trajectories, async () => {
    await db.minds.add({ id, json: mind });
    await db.trajectories.add({ mind_id: id, traj_id: id, name: mind.name, dir: "" });
    await appendStep(db, id, first);
    await appendStep(db, id, config);
    if (seed) await appendStep(db, id, seed);
  });
  return mind;
}

export const getMind = (db: ReverieDb, id: string) => getOwner(db, id, parseMind);

export const listMinds = (db: ReverieDb) => listOwners(db, parseMind);

async function updateMind(db: ReverieDb, id: string, change: (m: MindSettings) => MindSettings): Promise<void> {
  await db.transaction("rw", db.minds, async () => {
    const mind = await getMind(db, id);
    if (!mind) throw new Error(`No mind ${id} in this browser.`);
    await db.minds.put({ id, json: change(mind) });
  });
}

export function setRunning(db: ReverieDb, id: string, running: boolean): Promise<void> {
  return updateMind(db, id, (m) => ({ ...m, running }));
}

export function saveShellState(db: ReverieDb, id: string, shell: ShellState): Promise<void> {
  return updateMind(db, id, (m) => ({ ...m, shell }));
}

export function savePacingState(db: ReverieDb, id: string, pacing_state: PacingSnapshot): Promise<void> {
  return updateMind(db, id, (m) => ({ ...m, pacing_state }));
}

/** Ask the tab that runs the mind for a panic stop (from a tab that only views it). */
export function requestPanic(db: ReverieDb, id: string, now = Date.now()): Promise<void> {
  return updateMind(db, id, (m) => ({ ...m, running: false, panic_at: formatTs(now) }));
}

export const PANIC_CONTENT = "Panic stop by its human: the run in flight was ended at once.";
/** As far back as start-up recovery looks for runs without an ending. */
const PANIC_SCAN = 200;

/**
 * Record a panic stop, after the runner's tab ended the worker: an `error`
 * step for the run in flight (and any other run start-up would call cut off,
 * so none is later marked "interrupted"), and the mind stopped, in one
 * transaction. Clears a pending panic request.
 */
export async function panicStop(db: ReverieDb, id: string, runId?: string, now = Date.now()): Promise<Step[]> {
  // The asides too: its tail is read without the rows a pull set aside (lib/store/steps/aside.ts).
  return db.transaction("rw", [db.minds, db.steps, db.asides], async () => {
    const mind = await getMind(db, id);
    if (!mind) throw new Error(`No mind ${id} in this browser.`);
    const open = recoverAtStart(await tailSteps(db, id, PANIC_SCAN), now, mind.name).steps.flatMap((s) => (s.type === "error" && s.run_id ? [s.run_id] : []));
    const runs = [...new Set([...(runId ? [runId] : []), ...open])];
    const steps = (runs.length ? runs : [undefined]).map((run) =>
      stampStep({ type: "error", reason: "panic-stop", content: PANIC_CONTENT, ...(run ? { run_id: run } : {}), source: "system" }, { id: systemIds.uuid(), now }),
    );
    for (const step of steps) await appendStep(db, id, step);
    const next: MindSettings = { ...mind, running: false };
    delete next.panic_at;
    await db.minds.put({ id, json: next });
    return steps;
  });
}
