"use client";
// The mind's own texts (/workspace/self/), as its owner sees and changes them
// in Settings: one editor per file. A save is a change like the mind's own: a
// self-edit step in its trajectory, made by its worker when it runs. What the
// human may not change from here (its model, caps, pacing, permissions) is
// the form above; nothing written in these texts reaches those.
import { useEffect, useRef, useState } from "react";
import { SELF_FILES, type SelfFile } from "@/lib/mind/self/self";
import { useSelfChange, useSelfTexts, type SelfAsk } from "@/lib/store/view/hooks-self";
import type { Step } from "@/lib/trajectory/schema";
import { inputClass } from "./ModelFields";

const ABOUT: Record<SelfFile, string> = {
  "persona.md": "who it is",
  "instructions.md": "how it acts; {{name}}, {{persona}}, {{commands}} and {{skills}} are filled in",
  "first-look.md": "an idle wake's first look; {{persona}} and {{command-names}} are filled in",
  "responder.md": "how it answers people",
  "summarizer.md": "how it writes its memory of stretches of its life",
};

const muted = "text-sm text-stone-500 dark:text-stone-400";

/** What became of a change: made, refused (the error step's words), or still waiting for the mind's worker. */
export interface SelfAnswer {
  state: "done" | "failed" | "waiting";
  text: string;
}

export function answerOf(step: Step | null): SelfAnswer {
  if (!step) return { state: "waiting", text: "The mind makes the change at its next step." };
  const content = (step as { content?: string }).content ?? "";
  return step.type === "self-edit" ? { state: "done", text: content } : { state: "failed", text: content };
}

/** Ask for a change and follow it to its step, in one place for the editors and the history. */
export function useSelfAsk(mindId: string): { ask: (a: SelfAsk) => Promise<SelfAnswer>; busy: boolean } {
  const change = useSelfChange(mindId);
  const [busy, setBusy] = useState(false);
  const live = useRef<AbortController | null>(null);
  useEffect(() => () => live.current?.abort(), []);
  return {
    busy,
    ask: async (a) => {
      live.current?.abort();
      const ctl = new AbortController();
      live.current = ctl;
      setBusy(true);
      // A worker that does not make it within a while leaves the change waiting in its queue: said, not lost.
      const timer = setTimeout(() => ctl.abort(), 15_000);
      try {
        return answerOf(await change(a, ctl.signal));
      } catch (e) {
        return { state: "failed", text: `The change could not be made: ${e instanceof Error ? e.message : String(e)}` };
      } finally {
        clearTimeout(timer);
        setBusy(false);
      }
    },
  };
}

export function SelfTexts({ mindId }: { mindId: string }) {
  const texts = useSelfTexts(mindId);
  return (
    <section data-testid="self-texts" aria-labelledby="self-texts-heading" className="rounded border border-stone-200 p-3 dark:border-stone-800">
      <h2 id="self-texts-heading" className="mb-1 text-sm font-medium">
        Its own texts <span className="font-normal text-stone-500 dark:text-stone-400">(/workspace/self/: the mind may change them too; every change is a step)</span>
      </h2>
      {texts === undefined ? (
        <p className={muted}>Loading…</p>
      ) : texts === null ? (
        <p className={muted} data-testid="self-texts-none">
          The mind writes its texts at its first start, from its persona and the shipped ones.
        </p>
      ) : (
        <div className="flex flex-col gap-3">
          {SELF_FILES.map((file) => (
            <SelfTextEditor key={file} mindId={mindId} file={file} text={texts.get(file) ?? ""} />
          ))}
        </div>
      )}
    </section>
  );
}

function SelfTextEditor({ mindId, file, text }: { mindId: string; file: SelfFile; text: string }) {
  const name = file.replace(/\.md$/, "");
  // The text the draft was started from: a change the mind makes meanwhile shows at once unless the human has typed.
  const [from, setFrom] = useState(text);
  const [draft, setDraft] = useState(text);
  const [answer, setAnswer] = useState<SelfAnswer | null>(null);
  const { ask, busy } = useSelfAsk(mindId);
  useEffect(() => {
    if (draft === from && text !== from) {
      setFrom(text);
      setDraft(text);
    }
  }, [text, draft, from]);
  const dirty = draft !== from;
  const save = async () => {
    if (!dirty || busy) return;
    const a = await ask({ op: "write", file, text: draft, from, via: "settings" });
    setAnswer(a);
    if (a.state !== "failed") setFrom(draft);
  };
  return (
    <div className="block text-sm">
      <label htmlFor={`self-text-${mindId}-${name}`}>
        <span className="font-mono">self/{file}</span> <span className={muted}>— {ABOUT[file]}</span>
      </label>
      <textarea
        id={`self-text-${mindId}-${name}`}
        value={draft}
        onChange={(e) => {
          setDraft(e.target.value);
          setAnswer(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void save();
          }
          if (e.key === "Escape" && dirty) {
            e.preventDefault();
            setDraft(from);
          }
        }}
        rows={Math.min(16, Math.max(3, draft.split("\n").length + 1))}
        spellCheck={false}
        className={`${inputClass} font-mono text-xs`}
        data-testid={`self-text-${name}`}
      />
      <span className="mt-1 flex items-center gap-3">
        <button type="button" onClick={() => void save()} disabled={!dirty || busy} data-testid={`self-text-save-${name}`} className="rounded bg-indigo-600 px-2 py-1 text-xs font-medium text-white hover:bg-indigo-500 disabled:opacity-50">
          Save
        </button>
        {dirty && <span className={muted}>Ctrl+Enter saves, Escape takes it back.</span>}
        {answer && (
          <span role="status" data-testid="self-text-result" data-state={answer.state} className={answer.state === "failed" ? "text-sm text-red-700 dark:text-red-300" : muted}>
            {answer.text}
          </span>
        )}
      </span>
    </div>
  );
}
