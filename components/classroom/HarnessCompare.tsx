"use client";
// Harnesses compared: one scripted day of messages run through three
// harnesses by lib/classroom (the persistent one on Reverie's real pacing
// code), on a simulated clock, drawn side by side with their wakes and cost.
// A simulation, and it says so; the assumptions are on the page and editable.
import Link from "next/link";
import { useMemo, useState } from "react";
import { DEFAULT_MODEL, defaultAssumptions, PRICED_MODELS, priceOf } from "@/lib/classroom/assumptions";
import { DAY_PRESETS, parseDay } from "@/lib/classroom/days";
import { compareHarnesses, type Assumptions } from "@/lib/classroom/harness";
import { PRESENTING_CONTRAST, PresentationToggle, usePresenting } from "./presentation";
import { HarnessLanes } from "./HarnessLanes";

const FIELD = "min-h-10 rounded border border-stone-300 bg-transparent px-2 dark:border-stone-700";

export function HarnessCompare() {
  const presenting = usePresenting();
  const [presetKey, setPresetKey] = useState(DAY_PRESETS[0]?.key ?? "");
  const preset = DAY_PRESETS.find((p) => p.key === presetKey);
  const [script, setScript] = useState(preset?.script ?? "");
  const [model, setModel] = useState(DEFAULT_MODEL);
  const [everyMin, setEveryMin] = useState(15);
  const [contextTokens, setContextTokens] = useState(defaultAssumptions().messageWake.inputTokens);

  const parsed = useMemo(() => parseDay(preset?.name ?? "Your day", script), [preset?.name, script]);
  const assumptions: Assumptions = useMemo(() => {
    const a = defaultAssumptions(model);
    return { ...a, scheduleEveryS: Math.max(1, everyMin) * 60, messageWake: { ...a.messageWake, inputTokens: Math.max(0, contextTokens) } };
  }, [model, everyMin, contextTokens]);
  // A script that does not parse leaves the last good day drawn, with the error beside the editor.
  const [goodScript, setGoodScript] = useState(script);
  const lastGood = useMemo(() => {
    const good = parseDay(preset?.name ?? "Your day", goodScript);
    return good.ok ? good.day : null;
  }, [preset?.name, goodScript]);
  const day = parsed.ok ? parsed.day : lastGood;
  const edit = (text: string) => {
    setScript(text);
    if (parseDay("", text).ok) setGoodScript(text);
  };
  const results = useMemo(() => (day ? compareHarnesses(day, assumptions) : []), [day, assumptions]);
  const price = priceOf(model);
  const a = assumptions;

  return (
    <main data-testid="harness-compare" className={`mx-auto flex flex-col gap-4 px-4 py-4 ${presenting ? `max-w-none ${PRESENTING_CONTRAST}` : "max-w-5xl"}`}>
      <header className="flex flex-wrap items-baseline gap-3 border-b border-stone-200 pb-2 dark:border-stone-800">
        {!presenting && (
          <Link href="/classroom" className="text-sm text-stone-500 hover:underline dark:text-stone-400">
            ← classroom
          </Link>
        )}
        <h1 className="text-xl font-semibold">Harnesses compared</h1>
        <span className="ml-auto">
          <PresentationToggle />
        </span>
      </header>
      <p data-testid="simulation-label" className="rounded border-2 border-amber-500 bg-amber-50 px-3 py-2 text-amber-950 dark:bg-amber-950 dark:text-amber-100">
        <strong className="uppercase tracking-wide">Simulation.</strong> No model was called: the same day of messages runs through three harnesses on a simulated clock. The persistent lane is
        paced by Reverie&apos;s own pacing code (lib/mind/pacing/pacing.ts, default settings: {a.pacing.base_s} s doubling to {a.pacing.cap_s} s, {a.pacing.ticks_per_level} empty wakes per level).
      </p>

      {!presenting && (
        <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
          <div className="flex flex-wrap items-end gap-3">
            <label className="flex flex-col gap-1">
              <span>The day</span>
              <select
                data-testid="harness-day"
                value={presetKey}
                onChange={(e) => {
                  setPresetKey(e.target.value);
                  edit(DAY_PRESETS.find((p) => p.key === e.target.value)?.script ?? "");
                }}
                className={FIELD}
              >
                {DAY_PRESETS.map((p) => (
                  <option key={p.key} value={p.key}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-1">
              <span>Priced as</span>
              <select data-testid="harness-model" value={model} onChange={(e) => setModel(e.target.value)} className={FIELD}>
                {PRICED_MODELS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-1">
              <span>Timer every (min)</span>
              <input data-testid="harness-every" type="number" min={1} value={everyMin} onChange={(e) => setEveryMin(Number(e.target.value) || 1)} className={`${FIELD} w-24`} />
            </label>
            <label className="flex flex-col gap-1">
              <span>Context per reply call (tokens)</span>
              <input data-testid="harness-context" type="number" min={0} step={500} value={contextTokens} onChange={(e) => setContextTokens(Number(e.target.value) || 0)} className={`${FIELD} w-32`} />
            </label>
          </div>
          <p className="text-stone-500 dark:text-stone-400">{preset?.description}</p>
          <label className="flex flex-col gap-1">
            <span>Messages, one a line as “HH:MM who: text” (edit freely)</span>
            <textarea data-testid="harness-script" value={script} onChange={(e) => edit(e.target.value)} rows={6} className={`${FIELD} py-1 font-mono text-xs`} aria-invalid={!parsed.ok} />
          </label>
          {!parsed.ok && (
            <p role="alert" data-testid="harness-script-error" className="text-red-700 dark:text-red-300">
              {parsed.error} {lastGood ? "The lanes still show the last day that read correctly." : ""}
            </p>
          )}
        </form>
      )}

      {day && <HarnessLanes day={day} results={results} />}

      <section aria-labelledby="assumptions" className="text-sm text-stone-600 dark:text-stone-400">
        <h2 id="assumptions" className="font-medium text-stone-800 dark:text-stone-200">
          Assumptions
        </h2>
        <ul className="mt-1 list-disc pl-5">
          <li>
            A wake that answers messages makes {a.messageWake.calls} model calls of {a.messageWake.inputTokens.toLocaleString("en")} tokens in and {a.messageWake.outputTokens} out, and runs {a.messageWake.runS} s; a message that
            arrives meanwhile waits for it.
          </li>
          <li>
            Every other wake (the start, a timer tick, a paced wake) finds nothing new and idles: {a.idleWake.calls} call of {a.idleWake.inputTokens.toLocaleString("en")} tokens in (the idle look) and{" "}
            {a.idleWake.outputTokens} out, {a.idleWake.runS} s. Reverie&apos;s own forecast uses the same typical idle wake.
          </li>
          <li>
            Prices: {model} at ${price.input} per million tokens in and ${price.output} out (the built-in table), cached input not discounted.
          </li>
          <li>Reactive and scheduled answer one message per wake, in order; the persistent mind reads every message waiting in one wake. Reverie&apos;s separate responder, which answers at once, is left out so the three are one thinker each.</li>
          <li>The persistent mind starts at midnight; the timer&apos;s first tick is at {String(Math.floor(a.scheduleEveryS / 3600)).padStart(2, "0")}:{String(Math.floor((a.scheduleEveryS % 3600) / 60)).padStart(2, "0")}. Latency is from a message&apos;s arrival to the end of the wake that answered it.</li>
        </ul>
      </section>
    </main>
  );
}
