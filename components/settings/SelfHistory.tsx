"use client";
// The changes to the mind's own texts, newest first (its self-edit steps):
// when, which file, who (the mind, its human, a revert, its harness), the
// diff, and a Revert that undoes one as a new change (the log stays
// append-only). A revert that cannot be made says why under its button.
import { useState } from "react";
import { SELF_FILES } from "@/lib/mind/self/self";
import type { StepOf } from "@/lib/trajectory/schema";
import { selfEditWho } from "@/lib/trajectory/summary";
import { useSelfEdits } from "@/lib/store/view/hooks-self";
import { useSelfAsk, type SelfAnswer } from "./SelfTexts";

const SHOWN = 20;
const muted = "text-sm text-stone-500 dark:text-stone-400";

type SelfEdit = StepOf<"self-edit">;

export function SelfHistory({ mindId }: { mindId: string }) {
  const edits = useSelfEdits(mindId, SHOWN);
  return (
    <section data-testid="self-history" aria-labelledby="self-history-heading" className="rounded border border-stone-200 p-3 dark:border-stone-800">
      <h2 id="self-history-heading" className="mb-2 text-sm font-medium">
        Changes to its texts <span className="font-normal text-stone-500 dark:text-stone-400">(self-edit steps in the trajectory)</span>
      </h2>
      {edits === undefined ? (
        <p className={muted}>Loading…</p>
      ) : edits.length === 0 ? (
        <p className={muted}>No changes yet.</p>
      ) : (
        <ol className="flex flex-col gap-3">
          {edits.map((e) => (
            <SelfHistoryItem key={e.step_id} mindId={mindId} edit={e} />
          ))}
        </ol>
      )}
    </section>
  );
}

function SelfHistoryItem({ mindId, edit }: { mindId: string; edit: SelfEdit }) {
  const { ask, busy } = useSelfAsk(mindId);
  const [answer, setAnswer] = useState<SelfAnswer | null>(null);
  // Where a text began is not undone (the mind keeps its texts); every other change to one of its five texts may be (a watcher is the mind's to change: `watch`).
  const revertable = edit.before !== null && edit.after !== null && SELF_FILES.some((f) => edit.path === `self/${f}`);
  return (
    <li data-testid="self-history-item" data-step-id={edit.step_id} data-path={edit.path} data-by={edit.by.kind} className="text-sm">
      <div className="flex flex-wrap items-baseline gap-x-2">
        <time dateTime={edit.ts} className="font-mono text-xs text-stone-500 dark:text-stone-400">
          {new Date(edit.ts).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })}
        </time>
        <span className="font-mono">{edit.path}</span>
        <span className={muted}>by {selfEditWho(edit.by)}</span>
        {revertable && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void ask({ op: "revert", of: edit.step_id }).then(setAnswer)}
            data-testid="self-edit-revert"
            className="rounded border border-stone-300 px-2 py-0.5 text-xs hover:bg-stone-100 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900"
          >
            Revert
          </button>
        )}
      </div>
      <p className="break-words">{edit.content}</p>
      <details>
        <summary className="cursor-pointer text-xs text-stone-500 dark:text-stone-400">diff</summary>
        <pre data-testid="self-history-diff" className="max-h-64 overflow-auto rounded bg-stone-50 p-2 font-mono text-xs dark:bg-stone-900">
          {edit.diff}
        </pre>
      </details>
      {answer && (
        <p role="status" data-testid="self-revert-result" data-state={answer.state} className={answer.state === "failed" ? "text-sm text-red-700 dark:text-red-300" : muted}>
          {answer.text}
        </p>
      )}
    </li>
  );
}
