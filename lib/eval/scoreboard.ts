// What the archive page's scoreboard shows of a results.json, in words and
// places: each metric's figure and what it means, the simulated week's axis,
// where probes sit on it, how dense the wakes were, and the variants of a
// --vary run side by side. Pure: the components only lay these out.
import { thousands as groupThousands } from "../archive/limits";
import { shortDuration, usd } from "../trajectory/figures";
import type { EvalMetrics, EvalProbe, EvalResults, EvalVariant, EvalWake } from "./results";

export type MetricName = keyof EvalMetrics;

export interface MetricInfo {
  name: MetricName;
  /** What the figure means, in a line. */
  means: string;
}

/** Every figure of EvalMetrics, in the order the scoreboard lists them. */
export const METRICS: readonly MetricInfo[] = [
  { name: "first_response_s_p50", means: "Median time from a person's message to the mind's first answer." },
  { name: "first_response_s_p95", means: "The slow answers: 95 of 100 first answers came sooner than this." },
  { name: "reply_rate", means: "Share of messages answered at all (those that asked for no answer left out)." },
  { name: "duplicate_replies", means: "Further messages to a person after their message was answered, before they wrote again." },
  { name: "recall_accuracy", means: "Share of recall probes whose answer had what was told earlier." },
  { name: "unprompted_done", means: "Unprompted probes done in time: someone told, or the file written, unasked." },
  { name: "unprompted_per_person_day", means: "Messages nobody asked for (answers to nothing), per person per simulated day." },
  { name: "model_calls", means: "Model calls made in the run, summaries included." },
  { name: "usd_per_hour", means: "Spend per simulated hour, at the run's price: every call, summaries included, on the larger of the tokens reported and counted." },
  { name: "tokens_per_hour_idle", means: "Tokens per simulated hour spent in wakes that did nothing." },
  { name: "tokens_per_hour_busy", means: "Tokens per simulated hour spent in wakes that talked, acted or thought." },
  { name: "context_tokens_p50", means: "Median input tokens of a call: the context the model was shown." },
  { name: "context_tokens_max", means: "The largest context of any call." },
  { name: "errors_by_reason", means: "Error steps the mind recorded, by reason." },
];

const thousands = (n: number) => groupThousands(Math.round(n));

/** Seconds as a person reads a wait: 12.3 s, 4.2 min, 1.5 h. */
export const formatSeconds = shortDuration;

/** Dollars as the usage view writes them, with a bare $0 for nothing spent. */
export const formatUsd = (n: number) => (n === 0 ? "$0" : usd(n));

const percent = (r: number) => `${Math.round(r * 1000) / 10}%`;
const perPersonDay = (n: number) => `${Math.round(n * 100) / 100}/person/day`;

/** A metric's figure in words; null (nothing to measure it on) is a dash. */
export function formatMetric<K extends MetricName>(name: K, value: EvalMetrics[K]): string {
  if (value === null) return "—";
  if (typeof value === "object") {
    const reasons = Object.entries(value).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return reasons.length ? reasons.map(([reason, n]) => `${reason} ${n}`).join(", ") : "none";
  }
  switch (name) {
    case "first_response_s_p50":
    case "first_response_s_p95":
      return formatSeconds(value);
    case "reply_rate":
    case "recall_accuracy":
      return percent(value);
    case "usd_per_hour":
      return `${formatUsd(value)}/h`;
    case "unprompted_per_person_day":
      return perPersonDay(value);
    case "tokens_per_hour_idle":
    case "tokens_per_hour_busy":
      return `${thousands(value)}/h`;
    default:
      return thousands(value);
  }
}

/** Simulated hours from the start: 0.5 h, 30 h as 1 d 6 h. */
export function formatHours(h: number): string {
  if (h < 48) return `${Math.round(h * 100) / 100} h`;
  // Rounded before it is split, so 167.96 h is 7 d, not 6 d 24 h.
  const tenths = Math.round(h * 10);
  const d = Math.floor(tenths / 240);
  const rest = (tenths - d * 240) / 10;
  return rest ? `${d} d ${rest} h` : `${d} d`;
}

export interface Tick {
  h: number;
  label: string;
}

/** The axis of a run: hours for two days or less (at most a dozen ticks), then days. */
export function axisTicks(durationH: number): Tick[] {
  if (!(durationH > 0)) return [{ h: 0, label: "0 h" }];
  if (durationH > 48) {
    const step = durationH > 24 * 14 ? 48 : 24;
    const out: Tick[] = [];
    for (let h = 0; h < durationH; h += step) out.push({ h, label: `day ${h / 24 + 1}` });
    return out;
  }
  const step = [0.25, 0.5, 1, 2, 3, 6, 12].find((s) => durationH / s <= 12) ?? 24;
  const out: Tick[] = [];
  for (let i = 0; i * step <= durationH + 1e-9; i++) out.push({ h: i * step, label: `${i * step} h` });
  return out;
}

/** Wakes in each of `n` equal stretches of the run, for a density strip. Wakes outside [0, duration] are left out. */
export function wakeDensity(wakes: readonly EvalWake[], durationH: number, n: number): number[] {
  const counts = new Array<number>(Math.max(1, n)).fill(0);
  if (!(durationH > 0)) return counts;
  for (const w of wakes) {
    if (w.at_h < 0 || w.at_h > durationH) continue;
    const i = Math.min(counts.length - 1, Math.floor((w.at_h / durationH) * counts.length));
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

/** Stretches for the density strip: a quarter hour each, at most one per hour of a long run (168 for a week). */
export function densityBuckets(durationH: number): number {
  return Math.min(168, Math.max(1, Math.ceil(durationH / 0.25)));
}

export interface PlacedProbe {
  probe: EvalProbe;
  /** Simulated hours where it sits on the timeline. */
  h: number;
  /** false: decided by nothing happening, so placed where it was asked (its message's time). */
  decided: boolean;
}

/**
 * Where each probe sits: when it was decided, or, for one decided by nothing
 * happening, when it was asked (its message's hour). A probe with neither (a
 * budget) is left for the list beside.
 */
export function placeProbes(probes: readonly EvalProbe[]): { placed: PlacedProbe[]; unplaced: EvalProbe[] } {
  const placed: PlacedProbe[] = [];
  const unplaced: EvalProbe[] = [];
  for (const probe of probes) {
    const asked = probe.asked_h;
    if (probe.at_h !== null) placed.push({ probe, h: probe.at_h, decided: true });
    else if (asked !== null) placed.push({ probe, h: asked, decided: false });
    else unplaced.push(probe);
  }
  return { placed, unplaced };
}

/**
 * A row for each mark so that marks closer than `minGap` never share one:
 * each goes to the first row whose last mark is far enough to its left.
 * Returned in the order of `xs`.
 */
export function stackMarks(xs: readonly number[], minGap: number): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x || a.i - b.i);
  const rowEnds: number[] = [];
  const rows = new Array<number>(xs.length).fill(0);
  for (const { x, i } of order) {
    let row = rowEnds.findIndex((end) => x - end >= minGap);
    if (row < 0) row = rowEnds.push(x) - 1;
    else rowEnds[row] = x;
    rows[i] = row;
  }
  return rows;
}

/** The step a probe's mark opens: the mind's step that decided it (after the person's message), or the message. */
export const markStep = (p: EvalProbe): string | undefined => p.evidence[1] ?? p.evidence[0];

export const passCount = (probes: readonly EvalProbe[]) => ({ pass: probes.filter((p) => p.pass).length, total: probes.length });

/** A variant's name in the side-by-side table ("" is the run without --vary's change). */
export const variantName = (v: Pick<EvalVariant, "label">) => v.label || "as written";

export interface VariantCell {
  text: string;
  /** The exact figure, for a test or a tooltip: a number, a boolean, null, or an object. */
  value: unknown;
  /** Set on a probe's cell. */
  pass?: boolean;
}

export interface VariantRow {
  /** Stable across renders: `passed`, `simulated`, `probe:<id>`, `metric:<name>`. */
  key: string;
  label: string;
  cells: VariantCell[];
}

/** One row per figure, one cell per variant: probes passed, hours played, each probe, each metric. */
export function variantRows(variants: readonly EvalVariant[]): VariantRow[] {
  const probeIds = [...new Set(variants.flatMap((v) => v.probes.map((p) => p.id)))];
  return [
    {
      key: "passed",
      label: "probes passed",
      cells: variants.map((v) => {
        const c = passCount(v.probes);
        return { text: `${c.pass} / ${c.total}`, value: c.pass };
      }),
    },
    {
      key: "simulated",
      label: "simulated hours",
      cells: variants.map((v) => ({ text: `${formatHours(v.simulated_h)}${v.complete ? "" : " (stopped early)"}`, value: v.simulated_h })),
    },
    ...probeIds.map((id) => ({
      key: `probe:${id}`,
      label: id,
      cells: variants.map((v): VariantCell => {
        const p = v.probes.find((q) => q.id === id);
        return p ? { text: p.pass ? "pass" : "fail", value: p.pass, pass: p.pass } : { text: "—", value: null };
      }),
    })),
    ...METRICS.map(({ name }) => ({
      key: `metric:${name}`,
      label: name,
      cells: variants.map((v) => ({ text: formatMetric(name, v.metrics[name]), value: v.metrics[name] })),
    })),
  ];
}

/** Whether a variant is this archive's own run (a --vary run lists itself among its variants; labels tell them apart). */
export const isThisRun = (v: EvalVariant, r: EvalResults) => v.label === r.label;
