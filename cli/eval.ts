// `reverie eval <scenario.json>`: play a scenario (eval/README.md) with the
// real mind on a simulated clock against a model, and score it
// (lib/eval/play.ts, lib/eval/score.ts). Progress goes to stderr; the results
// go to stdout as a table, or as JSON with --json. Ctrl-C ends the play and
// scores what was played.
import { readFile } from "node:fs/promises";
import { playScenario } from "../lib/eval/play";
import { checkScenario } from "../lib/eval/scenario";
import { scoreMetrics, scoreProbes, wakeLog, type Metrics, type ProbeResult } from "../lib/eval/score";
import { modelPort } from "../lib/llm/complete";
import { createModelSource } from "../lib/llm/model";
import type { Price } from "../lib/llm/price";
import { BUILT_IN_PRICES, priceFor } from "../lib/llm/prices";
import { ModelSettings, modelLabel } from "../lib/llm/settings";
import { helpOrProblem, type Out } from "./out";

export interface EvalArgs {
  file: string;
  model: ModelSettings;
  /** The environment variable that holds the key (never the key itself on the command line). */
  apiKeyEnv?: string;
  price?: Price;
  /** `--set path=value`: a scenario setting (`pacing.cap_s=60`), applied before the file is checked. */
  sets: [string, unknown][];
  json: boolean;
}

const VALUE_FLAGS = new Set(["--provider", "--model", "--base-url", "--api-key-env", "--price", "--set"]);

/** The arguments, or the problem with them (shown above the usage, exit 2). */
export function parseEvalArgs(argv: string[]): EvalArgs | { problem: string } | "help" {
  const values = new Map<string, string[]>();
  const files: string[] = [];
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return "help";
    if (a === "--json") json = true;
    else if (VALUE_FLAGS.has(a)) {
      const v = argv[++i];
      if (v === undefined) return { problem: `${a} needs a value` };
      values.set(a, [...(values.get(a) ?? []), v]);
    } else if (a.startsWith("--")) return { problem: `unknown option ${a}` };
    else files.push(a);
  }
  if (files.length !== 1) return { problem: files.length ? `one scenario file, not ${files.length}` : "which scenario? give its .json file" };
  const one = (flag: string) => values.get(flag)?.at(-1);
  const parsed = ModelSettings.safeParse({ provider: one("--provider") ?? "openai-compatible", model: one("--model") ?? "", ...(one("--base-url") ? { baseURL: one("--base-url") } : {}) });
  if (!parsed.success) return { problem: parsed.error.issues.map((i) => `--${i.path.join(".") === "baseURL" ? "base-url" : i.path.join(".")}: ${i.message}`).join("; ") };
  if (parsed.data.provider === "proxy") return { problem: "--provider proxy needs the app's origin; give the upstream's provider and --base-url instead" };
  if (parsed.data.provider === "openai-compatible" && !parsed.data.baseURL) return { problem: "--base-url is needed for --provider openai-compatible" };
  let price: Price | undefined;
  const p = one("--price");
  if (p !== undefined) {
    const [input, output] = p.split(",").map(Number);
    if (input === undefined || output === undefined || !Number.isFinite(input) || !Number.isFinite(output) || input < 0 || output < 0) return { problem: "--price is IN,OUT in USD per million tokens, e.g. 0.15,0.6" };
    price = { input, output };
  }
  const sets: [string, unknown][] = [];
  for (const s of values.get("--set") ?? []) {
    const eq = s.indexOf("=");
    if (eq <= 0) return { problem: `--set takes path=value, e.g. pacing.cap_s=60, not ${JSON.stringify(s)}` };
    const raw = s.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself.
    }
    sets.push([s.slice(0, eq), value]);
  }
  return { file: files[0] as string, model: parsed.data, apiKeyEnv: one("--api-key-env"), price, sets, json };
}

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

export async function evalScenario(args: EvalArgs, io: Out, usage: string, signal?: AbortSignal): Promise<number> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(args.file, "utf8"));
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.err(`reverie: ${code === "ENOENT" ? `no such file: ${args.file}` : `${args.file} is not JSON: ${e instanceof Error ? e.message : String(e)}`}\n`);
    return 2;
  }
  if (doc && typeof doc === "object" && !Array.isArray(doc)) for (const [path, value] of args.sets) applySet(doc as Record<string, unknown>, path, value);
  const checked = checkScenario(doc);
  if (!checked.ok) {
    io.err(`reverie: ${args.file} is not a scenario:\n${checked.errors.map((e) => `  ${e}`).join("\n")}\n`);
    return 2;
  }
  const apiKey = args.apiKeyEnv ? process.env[args.apiKeyEnv] : undefined;
  if (args.apiKeyEnv && !apiKey) return helpOrProblem({ problem: `the environment variable ${args.apiKeyEnv} is not set` }, io, usage);
  const settings: ModelSettings = { ...args.model, ...(apiKey ? { apiKey } : {}) };
  const price = args.price ?? priceFor(settings, BUILT_IN_PRICES) ?? (settings.provider === "openai-compatible" ? { input: 0, output: 0 } : undefined);
  if (!price) return helpOrProblem({ problem: `no price is known for ${modelLabel(settings)}: give --price IN,OUT (USD per million tokens)` }, io, usage);
  const model = modelPort(await createModelSource(settings), modelLabel(settings), { price });

  const scenario = checked.scenario;
  const started = Date.now();
  const played = await playScenario({
    scenario,
    model,
    modelSettings: { ...args.model },
    signal,
    onProgress: (p) => io.err(`\r${scenario.name}: ${p.simH} of ${scenario.duration_h} simulated h, ${p.steps} steps, ${Math.round((Date.now() - started) / 1000)} s`),
  });
  io.err("\n");
  const probes = scoreProbes(played);
  const metrics = scoreMetrics(played, probes);
  const results = {
    scenario: scenario.name,
    model: modelLabel(settings),
    simulated_h: played.reachedH,
    complete: played.reachedH >= scenario.duration_h,
    wall_s: Math.round((Date.now() - started) / 100) / 10,
    probes: probes.map(({ id, kind, pass, at_h, evidence, why }) => ({ id, kind, pass, at_h, evidence, why })),
    metrics,
    /** One line per wake: its mode, tokens, model and exec seconds. */
    wakes: wakeLog(played),
  };
  if (args.json) io.out(`${JSON.stringify(results, null, 2)}\n`);
  else io.out(table(results.probes, metrics, results));
  return 0;
}

/** How many wakes of each mode, for the table. */
function modes(wakes: { mode: string }[]): string {
  const n = new Map<string, number>();
  for (const w of wakes) n.set(w.mode, (n.get(w.mode) ?? 0) + 1);
  return [...n].map(([m, k]) => `${k} ${m}`).join(", ") || "none";
}

function table(probes: ProbeResult[], metrics: Metrics, r: { scenario: string; model: string; simulated_h: number; complete: boolean; wall_s: number; wakes: { mode: string }[] }): string {
  const rows = [
    `${r.scenario} with ${r.model}: ${r.simulated_h} simulated h${r.complete ? "" : " (stopped early)"} in ${r.wall_s} s`,
    "",
    ...probes.map((p) => `${p.pass ? "pass" : "FAIL"}  ${p.id.padEnd(20)} ${p.kind.padEnd(10)} ${p.at_h === null ? "      " : `${String(p.at_h).padStart(6)} h`}  ${p.why}`),
    "",
    ...Object.entries(metrics).map(([k, v]) => `${k.padEnd(22)} ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`),
    `${"wakes".padEnd(22)} ${modes(r.wakes)}`,
  ];
  return `${rows.join("\n")}\n`;
}
