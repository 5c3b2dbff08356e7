"use client";
// Who the new mind is: a few ready-made personas to start from, the persona
// text (always editable), and the first thought it will begin with.
//
// The first thought follows the persona while it is a preset's; once the
// persona is written by hand, the thought is left empty unless the person
// writes one or draws one from the persona (a hand-written persona's mind
// starts as it always has, with nothing in its stream before its first wake).
import { useState } from "react";
import { DEFAULT_PRESET, firstThoughtFor, PERSONA_PRESETS, presetFor } from "@/lib/onboarding/persona-presets";
import { inputClass } from "../settings/ModelFields";

/** Where the first thought came from: it follows the persona unless the person wrote it. */
type ThoughtSource = "preset" | "drawn" | "typed";

export const FIRST_THOUGHT_FIELD = "first_thought";

export function PersonaFields() {
  const [persona, setPersona] = useState(DEFAULT_PRESET.persona);
  const [thought, setThought] = useState(DEFAULT_PRESET.firstThought);
  const [source, setSource] = useState<ThoughtSource>("preset");
  const current = presetFor(persona);

  function onPersona(text: string) {
    setPersona(text);
    if (source === "preset") setThought(presetFor(text)?.firstThought ?? "");
    else if (source === "drawn") setThought(firstThoughtFor(text));
  }

  return (
    <>
      <fieldset>
        <legend className="text-sm">Start from</legend>
        <div role="group" aria-label="Persona presets" className="mt-1 flex flex-wrap gap-2">
          {PERSONA_PRESETS.map((p) => {
            const chosen = current?.key === p.key;
            return (
              <button
                key={p.key}
                type="button"
                data-testid="persona-preset"
                data-preset={p.key}
                aria-pressed={chosen}
                title={p.blurb}
                onClick={() => {
                  setPersona(p.persona);
                  setThought(p.firstThought);
                  setSource("preset");
                }}
                className={`rounded border px-3 py-1 text-sm focus:outline-none focus:ring-2 focus:ring-indigo-400 ${
                  chosen
                    ? "border-indigo-600 bg-indigo-50 text-indigo-900 dark:border-indigo-400 dark:bg-indigo-950 dark:text-indigo-100"
                    : "border-stone-300 hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"
                }`}
              >
                {p.label}
              </button>
            );
          })}
        </div>
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" data-testid="persona-preset-blurb">
          {current ? current.blurb : "Your own persona: edit it freely, or pick a preset to start again from one."}
        </p>
      </fieldset>
      <label className="block text-sm">
        Persona
        <textarea name="persona" data-testid="new-mind-persona" className={`${inputClass} h-28`} value={persona} onChange={(e) => onPersona(e.target.value)} />
      </label>
      <div className="text-sm">
        <label htmlFor="new-mind-first-thought">First thought (optional: what it starts thinking about)</label>
        <textarea
          id="new-mind-first-thought"
          name={FIRST_THOUGHT_FIELD}
          data-testid="new-mind-first-thought"
          className={`${inputClass} h-20`}
          value={thought}
          placeholder="Empty: it starts with nothing but its persona."
          onChange={(e) => {
            setThought(e.target.value);
            setSource("typed");
          }}
        />
        {!current && persona.trim() && (source !== "drawn" || !thought) && (
          <button
            type="button"
            data-testid="first-thought-draw"
            onClick={() => {
              setThought(firstThoughtFor(persona));
              setSource("drawn");
            }}
            className="mt-1 rounded border border-stone-300 px-2 py-0.5 text-xs hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"
          >
            Draw one from the persona
          </button>
        )}
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">It is written in its stream as its own thought before it first wakes, so its first wake carries on from it.</p>
      </div>
    </>
  );
}
