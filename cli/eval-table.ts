// `reverie eval`'s results as text: one run's probes and figures, or a --vary
// run's variants side by side (a column each).
import type { EvalRun } from "../lib/eval/results";

/** How many wakes of each mode. */
function modes(wakes: EvalRun["wakes"]): string {
  const n = new Map<string, number>();
  for (const w of wakes) n.set(w.mode, (n.get(w.mode) ?? 0) + 1);
  return [...n].map(([m, k]) => `${k} ${m}`).join(", ") || "none";
}

const figure = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
const title = (r: EvalRun) => `${r.scenario} with ${r.model}${r.seed === null ? "" : ` (seed ${r.seed})`}`;

export function runTable(r: EvalRun): string {
  // The figures' names in one column, as wide as the longest.
  const width = Math.max("wakes".length, ...Object.keys(r.metrics).map((k) => k.length)) + 1;
  const rows = [
    `${title(r)}: ${r.simulated_h} simulated h${r.complete ? "" : " (stopped early)"} in ${r.wall_s} s`,
    "",
    ...r.probes.map((p) => `${p.pass ? "pass" : "FAIL"}  ${p.id.padEnd(20)} ${p.kind.padEnd(10)} ${p.at_h === null ? "      " : `${String(p.at_h).padStart(6)} h`}  ${p.why}`),
    "",
    ...Object.entries(r.metrics).map(([k, v]) => `${k.padEnd(width)} ${figure(v)}`),
    `${"wakes".padEnd(width)} ${modes(r.wakes)}`,
  ];
  return `${rows.join("\n")}\n`;
}

export function variantsTable(runs: EvalRun[]): string {
  const first = runs[0];
  if (!first) return "nothing was played\n";
  const head = ["", ...runs.map((r) => r.label)];
  const ids = [...new Set(runs.flatMap((r) => r.probes.map((p) => p.id)))];
  const body: string[][] = [
    ["probes passed", ...runs.map((r) => `${r.probes.filter((p) => p.pass).length}/${r.probes.length}`)],
    ...ids.map((id) => [id, ...runs.map((r) => {
      const p = r.probes.find((x) => x.id === id);
      return p ? (p.pass ? "pass" : "FAIL") : "-";
    })]),
    ...Object.keys(first.metrics).map((k) => [k, ...runs.map((r) => figure(r.metrics[k as keyof EvalRun["metrics"]]))]),
    ["simulated h", ...runs.map((r) => `${r.simulated_h}${r.complete ? "" : " (stopped)"}`)],
    ["wall s", ...runs.map((r) => String(r.wall_s))],
  ];
  const rows = [head, ...body];
  const widths = head.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? "").length)));
  const line = (row: string[]) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  ").trimEnd();
  return `${title(first)}, side by side:\n\n${rows.map(line).join("\n")}\n`;
}
