// A played, scored scenario as results.json has it (lib/eval/results.ts is
// the schema, which the app reads without the scorer).
import { asVariant, EVAL_RESULTS_FORMAT, type EvalResults, type EvalRun } from "./results";
import { scoreMetrics, scoreProbes, tokensByHour, wakeLog, type Played } from "./score";

/** What a run was played with, beside what the played scenario itself says. */
export interface RunMeta {
  model: string;
  seed: number | null;
  label: string;
  set: Record<string, unknown>;
  wallS: number;
}

/** A played scenario, scored, as results.json has it. */
export function runResults(p: Played & { reachedH: number }, meta: RunMeta): EvalRun {
  const probes = scoreProbes(p);
  return {
    scenario: p.scenario.name,
    model: meta.model,
    seed: meta.seed,
    start: p.scenario.start,
    duration_h: p.scenario.duration_h,
    label: meta.label,
    set: meta.set,
    simulated_h: Math.round(p.reachedH * 1000) / 1000,
    complete: p.reachedH >= p.scenario.duration_h,
    wall_s: Math.round(meta.wallS * 10) / 10,
    mind_id: p.steps.find((s) => s.type === "trajectory")?.step_id ?? "",
    probes: probes.map(({ id, kind, pass, at_h, asked_h, evidence, why }) => ({ id, kind, pass, at_h, asked_h, evidence, why })),
    metrics: scoreMetrics(p, probes),
    tokens_by_hour: tokensByHour(p),
    wakes: wakeLog(p),
  };
}

/** results.json for one run of a set: the run, and every run of the set side by side when there is more than one. */
export function resultsFile(run: EvalRun, all: readonly EvalRun[]): EvalResults {
  return { format: EVAL_RESULTS_FORMAT, version: 1, ...run, ...(all.length > 1 ? { variants: all.map(asVariant) } : {}) };
}
