// `reverie eval`'s arguments (cli/eval.ts runs them). Every mistake is named
// here, before anything is played: the command exits 2 with the problem
// above the usage.
import type { Price } from "../lib/mind/settings/model";
import { ModelSettings } from "../lib/mind/settings/model";

export interface EvalArgs {
  file: string;
  model: ModelSettings;
  /** The environment variable that holds the key (never the key itself on the command line). */
  apiKeyEnv?: string;
  price?: Price;
  /** `--set path=value`: a scenario setting (`pacing.cap_s=60`), applied before the file is checked. */
  sets: [string, unknown][];
  /** `--vary path=v1,v2,…`: one run per value, side by side. */
  vary?: { path: string; values: unknown[] };
  /** `--seed N`: the step ids, and the provider's sampling where it takes a seed. */
  seed?: number;
  /** `--out DIR`: the archive the app imports. */
  out?: string;
  json: boolean;
}

const VALUE_FLAGS = new Set(["--provider", "--model", "--base-url", "--api-key-env", "--price", "--set", "--vary", "--seed", "--out"]);
/** More runs than this in one --vary is a typo, not a comparison. */
export const MAX_VARIANTS = 20;

/** A value as given: JSON where it is JSON (60, true, "x"), else the text itself. */
function valueOf(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `path=rest`, or null when there is no path before the `=`. */
function pathValue(s: string): [string, string] | null {
  const eq = s.indexOf("=");
  return eq <= 0 ? null : [s.slice(0, eq), s.slice(eq + 1)];
}

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
    const pv = pathValue(s);
    if (!pv) return { problem: `--set takes path=value, e.g. pacing.cap_s=60, not ${JSON.stringify(s)}` };
    sets.push([pv[0], valueOf(pv[1])]);
  }
  let vary: EvalArgs["vary"];
  const varies = values.get("--vary") ?? [];
  if (varies.length > 1) return { problem: "--vary once: one setting's values side by side (fix the others with --set)" };
  if (varies[0] !== undefined) {
    const pv = pathValue(varies[0]);
    const raw = pv?.[1].split(",").map((v) => v.trim()) ?? [];
    if (!pv || raw.length < 2 || raw.some((v) => v === "")) return { problem: `--vary takes path=v1,v2,… (two values or more), e.g. pacing.cap_s=60,300, not ${JSON.stringify(varies[0])}` };
    if (raw.length > MAX_VARIANTS) return { problem: `--vary has ${raw.length} values; at most ${MAX_VARIANTS}` };
    if (new Set(raw).size !== raw.length) return { problem: `--vary names a value twice: ${varies[0]}` };
    if (sets.some(([path]) => path.replace(/^settings\./, "") === pv[0].replace(/^settings\./, ""))) return { problem: `--vary and --set both set ${pv[0]}` };
    vary = { path: pv[0], values: raw.map(valueOf) };
  }
  let seed: number | undefined;
  const s = one("--seed");
  if (s !== undefined) {
    seed = Number(s);
    if (!/^\d+$/.test(s) || !Number.isSafeInteger(seed) || seed > 0xffffffff) return { problem: `--seed is a whole number from 0 to ${0xffffffff}, not ${JSON.stringify(s)}` };
  }
  return { file: files[0] as string, model: parsed.data, apiKeyEnv: one("--api-key-env"), price, sets, vary, seed, out: one("--out"), json };
}
