"use client";
// The Scoreboard tab of an imported `reverie eval --out` archive: what was
// played (scenario, model, seed, hours), its figures, its probes in a table
// and on the simulated timeline, tokens per simulated hour, and, for a --vary
// run, every variant side by side. Everything shown comes from results.json;
// evidence links open their steps in the Trajectory tab.
import type { EvalResults } from "@/lib/eval/results";
import { formatHours, passCount } from "@/lib/eval/scoreboard";
import { MetricsTable } from "./MetricsTable";
import { ProbeTable } from "./ProbeTable";
import { ProbeTimeline } from "./ProbeTimeline";
import { TokensByHour } from "./TokensByHour";
import { VariantsTable } from "./VariantsTable";

export function Scoreboard({ archiveId, results }: { archiveId: string; results: EvalResults }) {
  const stepHref = (stepId: string) => `/view/${archiveId}?step=${encodeURIComponent(stepId)}`;
  return (
    // tabIndex: the panel scrolls, and the keyboard needs a way to scroll it.
    <section data-testid="scoreboard" aria-label="Scoreboard" tabIndex={0} className="flex min-h-0 flex-1 flex-col gap-5 overflow-auto py-3">
      <ScoreHeader results={results} />
      <Section title="Figures">
        <MetricsTable metrics={results.metrics} />
      </Section>
      <Section title="Probes">
        <ProbeTable probes={results.probes} stepHref={stepHref} />
      </Section>
      <Section title="The run on its simulated timeline">
        <ProbeTimeline results={results} stepHref={stepHref} />
      </Section>
      <Section title="Tokens per simulated hour">
        <TokensByHour start={results.start} tokens={results.tokens_by_hour} />
      </Section>
      {results.variants && results.variants.length > 0 && (
        <Section title="Variants side by side">
          <VariantsTable variants={results.variants} results={results} />
        </Section>
      )}
    </section>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="flex flex-col gap-2">
      <h2 className="text-sm font-semibold text-stone-700 dark:text-stone-300">{title}</h2>
      {children}
    </section>
  );
}

function ScoreHeader({ results: r }: { results: EvalResults }) {
  const { pass, total } = passCount(r.probes);
  const sets = Object.entries(r.set);
  return (
    <header data-testid="score-header" className="flex flex-col gap-1 text-sm">
      <p className="flex flex-wrap items-baseline gap-x-3">
        <strong data-testid="score-scenario" className="text-base">
          {r.scenario}
        </strong>
        {r.label && (
          <span data-testid="score-label" className="rounded bg-indigo-100 px-1.5 text-xs text-indigo-900 dark:bg-indigo-950 dark:text-indigo-200">
            variant {r.label}
          </span>
        )}
        <span data-testid="score-passed" data-pass={pass} data-total={total} className={pass === total ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
          {pass} of {total} probes passed
        </span>
      </p>
      <p className="text-stone-600 dark:text-stone-400">
        <span data-testid="score-model">{r.model}</span> · seed <span data-testid="score-seed">{r.seed === null ? "none" : r.seed}</span> ·{" "}
        <span data-testid="score-hours" data-value={r.simulated_h}>
          {formatHours(r.simulated_h)} of {formatHours(r.duration_h)} simulated
        </span>
        {!r.complete && (
          <strong data-testid="score-stopped" className="ml-1 text-amber-700 dark:text-amber-400">
            (stopped early)
          </strong>
        )}{" "}
        · from {r.start.replace("T", " ").replace(/:00(\.000)?Z$/, " UTC")} · played in <span data-testid="score-wall" data-value={r.wall_s}>{r.wall_s} s</span>
      </p>
      {sets.length > 0 && (
        <p data-testid="score-set" className="text-xs text-stone-500 dark:text-stone-400">
          settings changed: {sets.map(([path, v]) => `${path}=${JSON.stringify(v)}`).join(", ")}
        </p>
      )}
    </header>
  );
}
