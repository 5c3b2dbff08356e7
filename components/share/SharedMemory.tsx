"use client";
// An operator's view of the mind's memories and goals on their invite page,
// with the owner's Memory tab's controls. A change is sent to the server and
// waits there until the mind's home (its owner's tab, or the server's runner)
// makes it; the page follows it until its step is written, then shows what
// the mind reads, and the lists as the mind's workspace now holds them.
import { useCallback, useEffect, useState } from "react";
import { ApiRequestError } from "@/lib/sync/client/http";
import { type ShareClient } from "@/lib/sharing/client";
import { savedGuestName } from "@/lib/sharing/guest";
import type { SharedMemory as Notes } from "@/lib/sharing/wire";
import type { CurationRequest } from "@/lib/shell/curation";
import { CurationStatus, Goals, Memories, useCurator, type CurationAnswer } from "../memory/MemoryLists";

/** How often a sent change is looked for, and for how long, before the page says it still waits. */
const FOLLOW_MS = 1_000;
const FOLLOW_FOR_MS = 20_000;
const muted = "text-sm text-stone-500 dark:text-stone-400";

export function SharedMemory({ client }: { client: ShareClient }) {
  const [notes, setNotes] = useState<Notes | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async (): Promise<Notes | null> => {
    try {
      const n = await client.memory();
      setNotes(n);
      setError(null);
      return n;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return null;
    }
  }, [client]);

  useEffect(() => {
    void load();
  }, [load]);

  /** The step reaches the server before the files it changed (the workspace follows every few seconds): read the lists until they change. */
  const followFiles = async (sent: Notes | null) => {
    for (const until = Date.now() + FOLLOW_FOR_MS; Date.now() < until; await pause(FOLLOW_MS)) {
      const now = await load();
      if (!now || !sent || listed(now) !== listed(sent)) return;
    }
  };

  const curator = useCurator(async (req: CurationRequest): Promise<CurationAnswer> => {
    let id: string;
    try {
      id = (await client.curate(req, savedGuestName())).id;
    } catch (e) {
      const why = e instanceof ApiRequestError && e.status === 429 ? `too many changes for now: try again in ${e.retryAfter ?? 60} s` : e instanceof Error ? e.message : String(e);
      return { state: "failed", text: `Not sent: ${why}` };
    }
    const sent = await load();
    // Followed until its step is written: the step says what was made (or why nothing could be).
    for (const until = Date.now() + FOLLOW_FOR_MS; Date.now() < until; ) {
      await pause(FOLLOW_MS);
      const step = await recordedStep(client, id).catch(() => null);
      if (step) {
        if (step.failed) await load();
        else void followFiles(sent);
        return step.failed ? { state: "failed", text: `Not changed: ${step.failed}.` } : { state: "done", text: `Done. The mind reads: “${step.content}”` };
      }
    }
    return { state: "waiting", text: "Sent: the mind makes the change when its home next reads what came in (its owner's tab, or the server when it runs there)." };
  });

  const pending = notes?.pending.length ?? 0;
  return (
    <section data-testid="shared-memory" aria-label="Memory and goals" className="flex min-h-0 flex-1 flex-col gap-3 overflow-auto py-2">
      <div className="flex items-center gap-2">
        <p className={muted}>The mind&apos;s memories and goals, as its workspace last reached the server. Each change you make is a step it reads, under your name.</p>
        <button type="button" data-testid="shared-memory-refresh" onClick={() => void load()} className="min-h-9 shrink-0 rounded border border-stone-300 px-2 text-xs dark:border-stone-700">
          Refresh
        </button>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          The memory could not be read: {error}
        </p>
      )}
      <CurationStatus curator={curator} queued={pending} />
      {!notes ? (
        !error && <p className={muted}>Loading…</p>
      ) : (
        <>
          <Goals goals={notes.goals} empty="No goals yet." curator={curator} />
          <Memories memories={notes.memories} empty="No memories yet." curator={curator} />
        </>
      )}
    </section>
  );
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const listed = (n: Notes) => JSON.stringify([n.goals, n.memories]);

/** The step a change became, once its home wrote it and it reached the server; null while it waits. */
async function recordedStep(client: ShareClient, id: string): Promise<{ content: string; failed?: string } | null> {
  const at = await client.locate(id);
  if (!at) return null;
  const page = await client.steps({ traj: at.traj, after: at.seq - 1, limit: 1 });
  const row = page.steps.find((s) => s.seq === at.seq);
  if (!row) return null;
  const step = JSON.parse(row.json) as { content?: unknown; failed?: unknown };
  return { content: typeof step.content === "string" ? step.content : "", ...(typeof step.failed === "string" ? { failed: step.failed } : {}) };
}
