// What `reverie eval` writes as results.json (issue 23), and what the app's
// scoreboard reads back from an imported archive. One schema for both sides:
// the CLI builds it from a played, scored scenario; the app parses it with
// the same schema, so a file from another version is refused with a reason,
// never half-read.
import * as z from "zod";
import { PROBE_KINDS } from "./scenario";

export const EVAL_RESULTS_FILE = "results.json";
export const EVAL_RESULTS_FORMAT = "reverie-eval-results";

const Num = z.number().finite();
const NullableNum = Num.nullable();

export const EvalProbe = z.object({
  id: z.string(),
  kind: z.enum(PROBE_KINDS),
  pass: z.boolean(),
  /** Simulated hours from the start when it was decided; null when decided by nothing happening. */
  at_h: NullableNum,
  /** When its person's message came (simulated hours), where the timeline places a probe decided by nothing happening; null for a probe of the whole run. */
  asked_h: NullableNum,
  /** Step ids that show it: the person's message first, then the mind's steps. */
  evidence: z.array(z.string()),
  why: z.string(),
});
export type EvalProbe = z.infer<typeof EvalProbe>;

export const EvalMetrics = z.object({
  first_response_s_p50: NullableNum,
  first_response_s_p95: NullableNum,
  reply_rate: NullableNum,
  duplicate_replies: Num,
  recall_accuracy: NullableNum,
  unprompted_done: Num,
  /** Results written before it was counted read it as null (not measured). */
  unprompted_per_person_day: NullableNum.default(null),
  model_calls: Num,
  usd_per_hour: Num,
  tokens_per_hour_idle: Num,
  tokens_per_hour_busy: Num,
  context_tokens_p50: NullableNum,
  context_tokens_max: NullableNum,
  errors_by_reason: z.record(z.string(), Num),
});
export type EvalMetrics = z.infer<typeof EvalMetrics>;

export const EvalWake = z.object({
  at_h: Num,
  reason: z.string(),
  mode: z.enum(["talk", "act", "think", "idle"]),
  tokens: Num,
  model_s: Num,
  exec_s: Num,
});
export type EvalWake = z.infer<typeof EvalWake>;

/** One played run of a scenario: what it was, how each probe went, its figures. */
export const EvalRun = z.object({
  scenario: z.string(),
  model: z.string(),
  /** The --seed the run used; null without one. */
  seed: z.number().int().nullable(),
  /** Simulated start (ISO) and length, as the scenario has them. */
  start: z.string(),
  duration_h: Num,
  /** A --vary run's name, e.g. "pacing.cap_s=60"; "" for a single run. */
  label: z.string(),
  /** The settings --set and --vary changed, path → value. */
  set: z.record(z.string(), z.unknown()),
  simulated_h: Num,
  complete: z.boolean(),
  wall_s: Num,
  /** The played mind's id: its trajectory's first line (evidence steps are in it and its children). */
  mind_id: z.string(),
  probes: z.array(EvalProbe),
  metrics: EvalMetrics,
  /** Tokens of all model calls in each simulated hour, hour 0 first. */
  tokens_by_hour: z.array(Num),
  /** The per-wake log: one line per wake. */
  wakes: z.array(EvalWake),
});
export type EvalRun = z.infer<typeof EvalRun>;

/** A run as shown beside others (a --vary run's variants): no per-wake log. */
export const EvalVariant = EvalRun.omit({ wakes: true, tokens_by_hour: true });
export type EvalVariant = z.infer<typeof EvalVariant>;

/** results.json: this archive's run, and for a --vary run every variant side by side (this one too). */
export const EvalResults = EvalRun.extend({
  format: z.literal(EVAL_RESULTS_FORMAT),
  version: z.literal(1),
  variants: z.array(EvalVariant).optional(),
});
export type EvalResults = z.infer<typeof EvalResults>;

/** results.json's text read back: the results, or why not (shown as is). */
export function parseEvalResults(text: string): { ok: true; results: EvalResults } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `results.json is not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const r = EvalResults.safeParse(json);
  if (r.success) return { ok: true, results: r.data };
  const first = r.error.issues[0];
  return { ok: false, error: `results.json is not a scenario's results: ${first ? `${first.path.join(".") || "(top)"}: ${first.message}` : "unreadable"}` };
}

/** A run without its per-wake log, to sit beside others. */
export const asVariant = ({ wakes: _w, tokens_by_hour: _t, ...v }: EvalRun): EvalVariant => v;
