"use client";
// The mind's goals (focus.md) and memories (memory/), with what a person may
// do to them: add, edit and forget a memory; set, change, complete and drop a
// goal. The owner's Memory tab and an operator's invite page both show this;
// each hands in how a change is made (`curate`) and how its answer reads.
// Everything shown is the mind's own text: React escapes it, nothing is
// rendered as HTML or Markdown.
import { useState, type KeyboardEvent } from "react";
import type { Goal } from "@/lib/shell/focus-file";
import type { Memory } from "@/lib/shell/memory-file";
import type { CurationRequest } from "@/lib/shell/curation";

const muted = "text-sm text-stone-500 dark:text-stone-400";
const field = "w-full rounded border border-stone-300 bg-white px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-950";
const button = "min-h-9 rounded border border-stone-300 px-2 py-0.5 text-xs disabled:opacity-50 dark:border-stone-700";

/** How a change went, in words: made, refused (nothing changed), or waiting for the mind. */
export interface CurationAnswer {
  state: "done" | "failed" | "waiting";
  text: string;
}

/** Makes a change; resolves with how it went (a thrown error is shown as it is). */
export type Curate = (req: CurationRequest) => Promise<CurationAnswer>;

/** "Save" on Ctrl+Enter (or ⌘+Enter), "Cancel" on Escape. */
function keys(save: () => void, cancel?: () => void) {
  return (e: KeyboardEvent) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    } else if (e.key === "Escape" && cancel) {
      e.preventDefault();
      cancel();
    }
  };
}

const tagList = (raw: string) =>
  raw
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");

/** Runs changes one at a time and keeps the last answer for the status line. */
export function useCurator(curate: Curate | undefined) {
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<CurationAnswer | null>(null);
  const run = async (req: CurationRequest): Promise<boolean> => {
    if (!curate || busy) return false;
    setBusy(true);
    try {
      const a = await curate(req);
      setAnswer(a);
      return a.state !== "failed";
    } catch (e) {
      setAnswer({ state: "failed", text: e instanceof Error ? e.message : String(e) });
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, answer, run };
}
export type Curator = ReturnType<typeof useCurator>;

/** The last change's answer, and how many changes still wait for the mind (`queued`, 0 for none). */
export function CurationStatus({ curator, queued }: { curator: Curator; queued: number }) {
  const { answer } = curator;
  return (
    <div className="flex flex-col gap-1">
      {answer && (
        <p
          role="status"
          data-testid="curation-result"
          data-state={answer.state}
          className={`rounded px-2 py-1 text-sm ${answer.state === "failed" ? "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-stone-100 dark:bg-stone-900"}`}
        >
          {answer.text}
        </p>
      )}
      {queued > 0 && (
        <p data-testid="curation-queued" data-count={queued} className={muted}>
          {queued === 1 ? "1 change waits" : `${queued} changes wait`} for the mind to make {queued === 1 ? "it" : "them"}.
        </p>
      )}
    </div>
  );
}

export function Goals({ goals, empty, curator }: { goals: Goal[]; empty: string; curator?: Curator }) {
  const [text, setText] = useState("");
  const add = async () => {
    if (!text.trim()) return;
    if (await curator?.run({ what: "goal", op: "add", text })) setText("");
  };
  return (
    <section aria-labelledby="memory-goals-heading">
      <h2 id="memory-goals-heading" className="mb-1 text-sm font-medium">
        Goals <span className={muted}>(focus.md)</span>
      </h2>
      {goals.length === 0 ? (
        <p className={muted}>{empty}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {goals.map((g) => (
            <GoalItem key={`${g.line}:${g.id}`} goal={g} curator={curator} />
          ))}
        </ul>
      )}
      {curator && (
        <div className="mt-2 flex gap-2">
          <label className="sr-only" htmlFor="goal-add-text">
            A new goal
          </label>
          <input
            id="goal-add-text"
            data-testid="goal-add-text"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                void add();
              }
            }}
            placeholder="A new goal for the mind"
            className={field}
          />
          <button type="button" data-testid="goal-add" onClick={() => void add()} disabled={curator.busy || !text.trim()} className={button}>
            Set goal
          </button>
        </div>
      )}
    </section>
  );
}

function GoalItem({ goal: g, curator }: { goal: Goal; curator?: Curator }) {
  const [editing, setEditing] = useState<string | null>(null);
  // A hand-written goal has no id until the mind's next write gives it one: it cannot be named yet.
  const named = g.id !== "----";
  const save = async () => {
    if (editing === null || !editing.trim()) return;
    if (editing.trim() === g.goal.trim()) return setEditing(null);
    if (await curator?.run({ what: "goal", op: "edit", target: g.id, text: editing })) setEditing(null);
  };
  return (
    <li data-testid="goal-item" data-done={g.done} data-goal-id={g.id} className="flex flex-wrap items-baseline gap-2 text-sm">
      <span aria-hidden className={g.done ? "text-emerald-600 dark:text-emerald-400" : "text-stone-400"}>
        {g.done ? "☑" : "☐"}
      </span>
      <span className="sr-only">{g.done ? "done:" : "open:"}</span>
      <span className="font-mono text-xs text-stone-500 dark:text-stone-400">{g.id}</span>
      {editing === null ? (
        <span data-testid="goal-text" className={`min-w-0 flex-1 break-words ${g.done ? "text-stone-500 line-through dark:text-stone-400" : ""}`}>
          {g.goal}
        </span>
      ) : (
        <input
          data-testid="goal-edit-text"
          aria-label={`Goal ${g.id}`}
          autoFocus
          value={editing}
          onChange={(e) => setEditing(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void save();
            } else keys(() => void save(), () => setEditing(null))(e);
          }}
          className={`${field} flex-1`}
        />
      )}
      {curator && named && (
        <span className="flex gap-1">
          {editing === null ? (
            <>
              <button type="button" data-testid="goal-edit" onClick={() => setEditing(g.goal)} disabled={curator.busy} className={button} aria-label={`Edit goal ${g.id}`}>
                Edit
              </button>
              {!g.done && (
                <button type="button" data-testid="goal-done" onClick={() => void curator.run({ what: "goal", op: "done", target: g.id })} disabled={curator.busy} className={button} aria-label={`Mark goal ${g.id} done`}>
                  Done
                </button>
              )}
              <button type="button" data-testid="goal-forget" onClick={() => void curator.run({ what: "goal", op: "forget", target: g.id })} disabled={curator.busy} className={button} aria-label={`Drop goal ${g.id}`}>
                Drop
              </button>
            </>
          ) : (
            <>
              <button type="button" data-testid="goal-edit-save" onClick={() => void save()} disabled={curator.busy || !editing.trim()} className={button}>
                Save
              </button>
              <button type="button" data-testid="goal-edit-cancel" onClick={() => setEditing(null)} className={button}>
                Cancel
              </button>
            </>
          )}
        </span>
      )}
    </li>
  );
}

/** `YYYY-MM-DD HH:MM` UTC, as `mem list` prints it; a hand-written time that does not parse is shown as written. */
function stamp(created: string): string {
  const t = Date.parse(created);
  if (Number.isNaN(t)) return created;
  const iso = new Date(t).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function Memories({ memories, empty, curator }: { memories: Memory[]; empty: string; curator?: Curator }) {
  const [text, setText] = useState("");
  const [tags, setTags] = useState("");
  const add = async () => {
    if (!text.trim()) return;
    if (await curator?.run({ what: "memory", op: "add", text, ...(tagList(tags).length ? { tags: tagList(tags) } : {}) })) {
      setText("");
      setTags("");
    }
  };
  return (
    <section aria-labelledby="memory-memories-heading">
      <h2 id="memory-memories-heading" className="mb-1 text-sm font-medium">
        Memories <span className={muted}>(memory/, newest first)</span>
      </h2>
      {curator && (
        <div className="mb-2 flex flex-col gap-1">
          <label className="sr-only" htmlFor="memory-add-text">
            A new memory
          </label>
          <textarea
            id="memory-add-text"
            data-testid="memory-add-text"
            rows={2}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={keys(() => void add())}
            placeholder="Something for the mind to remember (Ctrl+Enter to save)"
            className={field}
          />
          <div className="flex gap-2">
            <input data-testid="memory-add-tags" aria-label="Tags of the new memory" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="tags, comma-separated" className={`${field} sm:w-72`} />
            <button type="button" data-testid="memory-add" onClick={() => void add()} disabled={curator.busy || !text.trim()} className={button}>
              Remember
            </button>
          </div>
        </div>
      )}
      {memories.length === 0 ? (
        <p className={muted}>{empty}</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {memories.map((m) => (
            <MemoryItem key={m.id} memory={m} curator={curator} />
          ))}
        </ul>
      )}
    </section>
  );
}

function MemoryItem({ memory: m, curator }: { memory: Memory; curator?: Curator }) {
  const [editing, setEditing] = useState<{ text: string; tags: string } | null>(null);
  const save = async () => {
    if (!editing?.text.trim()) return;
    if (await curator?.run({ what: "memory", op: "edit", target: m.id, text: editing.text, tags: tagList(editing.tags) })) setEditing(null);
  };
  return (
    <li data-testid="memory-item" data-memory-id={m.id} className="rounded border border-stone-200 p-2 dark:border-stone-800">
      <div className="flex flex-wrap items-baseline gap-2 text-xs text-stone-500 dark:text-stone-400">
        <span className="font-mono" data-testid="memory-id">
          {m.id}
        </span>
        <time dateTime={Number.isNaN(Date.parse(m.created)) ? undefined : m.created} data-testid="memory-date">
          {stamp(m.created)}
        </time>
        {m.by && <span data-testid="memory-by">added by {m.by}</span>}
        {m.edited && (
          <span data-testid="memory-edited">
            edited by {m.edited.by} {stamp(m.edited.at)}
          </span>
        )}
        {m.tags.map((t) => (
          <span key={t} data-testid="memory-tag" className="rounded bg-stone-100 px-1.5 text-stone-700 dark:bg-stone-800 dark:text-stone-300">
            {t}
          </span>
        ))}
        {curator && editing === null && (
          <span className="ml-auto flex gap-1">
            <button type="button" data-testid="memory-edit" onClick={() => setEditing({ text: m.text.replace(/\s+$/, ""), tags: m.tags.join(", ") })} disabled={curator.busy} className={button} aria-label={`Edit memory ${m.id}`}>
              Edit
            </button>
            <button type="button" data-testid="memory-forget" onClick={() => void curator.run({ what: "memory", op: "forget", target: m.id })} disabled={curator.busy} className={button} aria-label={`Forget memory ${m.id}`}>
              Forget
            </button>
          </span>
        )}
      </div>
      {editing === null ? (
        <p data-testid="memory-text" className="mt-1 whitespace-pre-wrap break-words text-sm">
          {m.text.replace(/\s+$/, "")}
        </p>
      ) : (
        <div className="mt-1 flex flex-col gap-1">
          <textarea
            data-testid="memory-edit-text"
            aria-label={`Memory ${m.id}`}
            autoFocus
            rows={Math.min(12, Math.max(2, editing.text.split("\n").length + 1))}
            value={editing.text}
            onChange={(e) => setEditing({ ...editing, text: e.target.value })}
            onKeyDown={keys(() => void save(), () => setEditing(null))}
            className={field}
          />
          <div className="flex gap-2">
            <input data-testid="memory-edit-tags" aria-label={`Tags of memory ${m.id}`} value={editing.tags} onChange={(e) => setEditing({ ...editing, tags: e.target.value })} placeholder="tags, comma-separated" className={`${field} sm:w-72`} />
            <button type="button" data-testid="memory-edit-save" onClick={() => void save()} disabled={curator?.busy || !editing.text.trim()} className={button}>
              Save
            </button>
            <button type="button" data-testid="memory-edit-cancel" onClick={() => setEditing(null)} className={button}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </li>
  );
}
