"use client";
// How the new mind paces itself when nobody is around, with the numbers told
// in a sentence that follows them as they are typed. Field names as in
// Settings (base_s, cap_s, ticks_per_level); ids pacing-base_s, pacing-cap_s,
// pacing-ticks_per_level.
import { DEFAULT_PACING } from "@/lib/mind/pacing/pacing";
import type { PacingConfig } from "@/lib/trajectory/schema";
import { inputClass } from "../settings/ModelFields";
import { pacingSentence } from "./pacing-words";

const FIELDS: { name: "base_s" | "cap_s" | "ticks_per_level"; label: string; min: number; max: number; step: string }[] = [
  { name: "base_s", label: "First pause (s)", min: 1, max: 3600, step: "any" },
  { name: "cap_s", label: "Longest pause (s)", min: 1, max: 86400, step: "any" },
  { name: "ticks_per_level", label: "Idle wakes per level", min: 1, max: 100, step: "1" },
];

/** `typed`: the pacing as the form reads it now (its problems when it cannot be one). */
export function PacingFields({ typed }: { typed: { ok: true; pacing: PacingConfig } | { ok: false; problems: string[] } }) {
  return (
    <fieldset className="grid gap-3 sm:grid-cols-3">
      <legend className="mb-1 text-sm font-medium">Pacing when idle</legend>
      {FIELDS.map((f) => (
        <label key={f.name} className="block text-sm">
          {f.label}
          <input name={f.name} type="number" min={f.min} max={f.max} step={f.step} required defaultValue={DEFAULT_PACING[f.name]} className={inputClass} data-testid={`pacing-${f.name}`} />
        </label>
      ))}
      <p data-testid="pacing-sentence" aria-live="polite" className={`text-xs sm:col-span-3 ${typed.ok ? "text-stone-600 dark:text-stone-400" : "text-red-700 dark:text-red-400"}`}>
        {typed.ok ? pacingSentence(typed.pacing) : typed.problems.join(" ")}
      </p>
    </fieldset>
  );
}
