// `reverie eval <scenario.json>`: play a scenario (eval/README.md) with the
// real mind on a simulated clock against a model, and score it
// (lib/eval/play.ts, lib/eval/score.ts). With --vary, one run per value, side
// by side. Progress goes to stderr; the results go to stdout as a table, or
// as JSON with --json; --out writes each run as an archive the app imports.
// Ctrl-C ends the play: what was played is scored, printed and written.
import { readFile } from "node:fs/promises";
import { playScenario, REPEATABLE_CALL_S, type PlayedScenario } from "../lib/eval/play";
import { EVAL_RESULTS_FORMAT, type EvalRun } from "../lib/eval/results";
import { resultsFile, runResults } from "../lib/eval/run-results";
import { checkScenario, type Scenario } from "../lib/eval/scenario";
import { seededIds } from "../lib/eval/seeded-ids";
import { modelPort } from "../lib/llm/complete";
import { createModelSource } from "../lib/llm/model";
import { BUILT_IN_PRICES, priceFor } from "../lib/llm/prices";
import { type ModelSettings } from "../lib/mind/settings/model";
import { modelLabel } from "../lib/llm/settings";
import type { EvalArgs } from "./eval-args";
import { runTable, variantsTable } from "./eval-table";
import { checkOutDir, writeEvalOut } from "./eval-out";
import { helpOrProblem, type Out } from "./out";

export { parseEvalArgs, type EvalArgs } from "./eval-args";

/** `pacing.cap_s=60` into the scenario's settings (a leading `settings.` is allowed). */
function applySet(doc: Record<string, unknown>, path: string, value: unknown): void {
  const keys = ["settings", ...path.replace(/^settings\./, "").split(".")];
  let at: Record<string, unknown> = doc;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    at = (at[k] = next && typeof next === "object" && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
  }
  at[keys.at(-1) as string] = value;
}

/** A run to play: its name, the settings it changes, and the scenario with them. */
interface Planned {
  label: string;
  set: Record<string, unknown>;
  scenario: Scenario;
}

/** The runs the arguments ask for, each scenario checked with its settings; or every problem, named. */
function plan(doc: unknown, args: EvalArgs, file: string): { runs: Planned[] } | { problems: string[] } {
  const variants: { label: string; extra: [string, unknown][] }[] = args.vary
    ? args.vary.values.map((v) => ({ label: `${args.vary?.path}=${typeof v === "string" ? v : JSON.stringify(v)}`, extra: [[args.vary?.path as string, v]] }))
    : [{ label: "", extra: [] }];
  const out: Planned[] = [];
  const problems: string[] = [];
  for (const { label, extra } of variants) {
    const copy = structuredClone(doc);
    const all = [...args.sets, ...extra];
    if (copy && typeof copy === "object" && !Array.isArray(copy)) for (const [path, value] of all) applySet(copy as Record<string, unknown>, path, value);
    const checked = checkScenario(copy);
    if (checked.ok) out.push({ label, set: Object.fromEntries(all), scenario: checked.scenario });
    else problems.push(`${file}${label ? ` with ${label}` : ""} is not a scenario:`, ...checked.errors.map((e) => `  ${e}`));
  }
  return problems.length ? { problems } : { runs: out };
}

export async function evalScenario(args: EvalArgs, io: Out, usage: string, signal?: AbortSignal): Promise<number> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(args.file, "utf8"));
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.err(`reverie: ${code === "ENOENT" ? `no such file: ${args.file}` : `${args.file} is not JSON: ${e instanceof Error ? e.message : String(e)}`}\n`);
    return 2;
  }
  const planned = plan(doc, args, args.file);
  if ("problems" in planned) {
    io.err(`reverie: ${planned.problems.join("\n")}\n`);
    return 2;
  }
  const apiKey = args.apiKeyEnv ? process.env[args.apiKeyEnv] : undefined;
  if (args.apiKeyEnv && !apiKey) return helpOrProblem({ problem: `the environment variable ${args.apiKeyEnv} is not set` }, io, usage);
  const settings: ModelSettings = { ...args.model, ...(apiKey ? { apiKey } : {}) };
  const price = args.price ?? priceFor(settings, BUILT_IN_PRICES) ?? (settings.provider === "openai-compatible" ? { input: 0, output: 0 } : undefined);
  if (!price) return helpOrProblem({ problem: `no price is known for ${modelLabel(settings)}: give --price IN,OUT (USD per million tokens)` }, io, usage);
  if (args.out) {
    const refused = await checkOutDir(args.out);
    if (refused) return helpOrProblem(refused, io, usage);
  }
  const model = modelPort(await createModelSource(settings), modelLabel(settings), { price, ...(args.seed !== undefined ? { seed: args.seed } : {}) });

  const played: { run: EvalRun; state: PlayedScenario["state"] }[] = [];
  for (const { label, set, scenario } of planned.runs) {
    if (signal?.aborted) break;
    const started = Date.now();
    const name = label ? `${scenario.name} (${label})` : scenario.name;
    const p = await playScenario({
      scenario,
      model,
      price,
      modelSettings: { ...args.model },
      // Repeatable: ids from the seed, and a clock that counts each call the same, whatever it really took.
      // The same seed for every variant: their differences are the setting's, not the ids'.
      ...(args.seed !== undefined ? { ids: seededIds(args.seed), fixedCallS: REPEATABLE_CALL_S } : {}),
      signal,
      onProgress: (at) => io.err(`\r${name}: ${at.simH} of ${scenario.duration_h} simulated h, ${at.calls} calls, $${at.usd.toFixed(4)}, ${Math.round((Date.now() - started) / 1000)} s`),
    });
    io.err("\n");
    played.push({ run: runResults(p, { model: modelLabel(settings), seed: args.seed ?? null, label, set, wallS: (Date.now() - started) / 1000 }), state: p.state });
  }
  const all = played.map((p) => p.run);
  if (!all[0]) {
    io.err("reverie: stopped before anything was played\n");
    return 130;
  }
  const [first] = all;
  // A --vary run's results, all of them whole: printed with --json, and DIR/results.json with --out.
  const summary = args.vary ? { format: EVAL_RESULTS_FORMAT, version: 1, scenario: first.scenario, variants: all } : undefined;
  if (args.out) {
    const where = await writeEvalOut(args.out, played.map((p) => ({ state: p.state, results: resultsFile(p.run, all) })), summary);
    if (typeof where === "object") {
      io.err(`reverie: ${where.problem}\n`);
      return 2;
    }
    io.err(`wrote ${where}\n`);
  }
  if (args.json) io.out(`${JSON.stringify(summary ?? resultsFile(first, all), null, 2)}\n`);
  else io.out(summary ? variantsTable(all) : runTable(first));
  return 0;
}
