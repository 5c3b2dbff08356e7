// A mind's record: its human's settings (persona, model, caps, pacing,
// permissions) and what a home keeps beside them (the shell's state, the
// pacing's). The tab keeps it in IndexedDB; the server keeps a copy without
// any key (sync_minds.settings) for the runner that hosts the mind while no
// tab does. Declared once here, so both homes parse it alike.
import * as z from "zod";
import { ModelSettings } from "./model";
import { DEFAULT_PERMISSIONS, Permissions } from "../../trajectory/permissions";
import { BudgetConfig, PacingConfig, stampStep, type Step } from "../../trajectory/schema";
import { DEFAULT_PACING } from "../pacing/pacing";
import { DEFAULT_RUN_LIMITS } from "../run/types";
import { PacingSnapshot, ShellState } from "../state/state";

export const MindSettings = z.object({
  id: z.string(),
  name: z.string().min(1),
  persona: z.string(),
  model: ModelSettings,
  created_at: z.string(),
  /** Whether the mind should think when a tab holds it. Stop sets it false. */
  running: z.boolean(),
  pacing: PacingConfig.default(DEFAULT_PACING),
  max_iterations: z.number().int().positive().default(DEFAULT_RUN_LIMITS.maxIterations),
  /** What the sandbox may do; only the human changes it (a `config` step each time). */
  permissions: Permissions.default(DEFAULT_PERMISSIONS),
  /** Spend caps; absent in minds saved before caps existed, which do not start until their human sets them. */
  budget: BudgetConfig.optional(),
  /** The model that writes its summaries (same provider and key as `model`), when its human picked a cheaper one; absent: the mind's own. */
  summary_model: z.string().trim().min(1).optional(),
  /** The shell's variables and directory, carried across execs and reloads. */
  shell: ShellState.optional(),
  /** Where the inner life's idle backoff stood after its last wake, so a reload or a move goes on at the same pace. */
  pacing_state: PacingSnapshot.optional(),
  /** A panic stop asked for from a tab that does not run the mind; the runner's tab carries it out. */
  panic_at: z.string().optional(),
});
export type MindSettings = z.infer<typeof MindSettings>;

/** Parse a stored record; one that does not parse is reported as undefined, never cast. */
export function parseMindSettings(json: unknown): MindSettings | undefined {
  const r = MindSettings.safeParse(json);
  return r.success ? r.data : undefined;
}

/** The `config` step that records a mind's settings (never its key). */
export function configStep(mind: MindSettings, now: number, id: string): Step {
  return stampStep(
    {
      type: "config",
      source: "system",
      pacing: mind.pacing,
      max_iterations: mind.max_iterations,
      provider: mind.model.provider,
      model: mind.model.model,
      permissions: mind.permissions,
      ...(mind.budget ? { budget: mind.budget } : {}),
      ...(mind.summary_model ? { summary_model: mind.summary_model } : {}),
    },
    { id, now },
  );
}

export const MIND_JSON_FORMAT = "reverie-mind";

/** A mind's mind.json in an archive: persona and settings, never the key. */
export function mindFile(mind: MindSettings): Record<string, unknown> {
  const { apiKey: _key, ...model } = mind.model;
  return {
    format: MIND_JSON_FORMAT,
    version: 1,
    id: mind.id,
    name: mind.name,
    persona: mind.persona,
    model,
    pacing: mind.pacing,
    max_iterations: mind.max_iterations,
    created_at: mind.created_at,
  };
}
