"use client";
// An operator's controls on an invite page: pause, resume and stop the mind,
// under the name they write as (the mind records who did it). The server
// obeys at once wherever the mind runs; what it says back is shown.
import { useState } from "react";
import { ApiRequestError } from "@/lib/sync/client/http";
import { type ShareClient } from "@/lib/sharing/client";
import { savedGuestName } from "@/lib/sharing/guest";
import type { ControlAction } from "@/lib/sharing/roles";

const DONE: Record<ControlAction, string> = {
  pause: "Paused: it finishes nothing more until an operator resumes it.",
  resume: "Resumed: it thinks again.",
  stop: "Stopped: only its owner can start it again.",
};

const btn = "min-h-10 rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-40 dark:border-stone-700 dark:hover:bg-stone-900";

export function OperatorControls({ client, mindName }: { client: ShareClient; mindName: string }) {
  const [busy, setBusy] = useState<ControlAction | null>(null);
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);

  async function ask(action: ControlAction) {
    setBusy(action);
    setSaid(null);
    try {
      await client.control(action, savedGuestName());
      setSaid({ ok: true, text: DONE[action] });
    } catch (e) {
      const why = e instanceof ApiRequestError && e.status === 429 ? `too many requests for now: try again in ${e.retryAfter ?? 60} s` : e instanceof Error ? e.message : String(e);
      setSaid({ ok: false, text: `Not done: ${why}` });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section aria-label={`Control ${mindName}`} data-testid="operator-controls" className="flex flex-wrap items-center gap-2">
      <span className="text-xs text-stone-600 dark:text-stone-400">As an operator:</span>
      <button type="button" data-testid="control-pause" className={btn} disabled={busy !== null} onClick={() => void ask("pause")}>
        {busy === "pause" ? "Pausing…" : "Pause"}
      </button>
      <button type="button" data-testid="control-resume" className={btn} disabled={busy !== null} onClick={() => void ask("resume")}>
        {busy === "resume" ? "Resuming…" : "Resume"}
      </button>
      <button
        type="button"
        data-testid="control-stop"
        aria-label={`Stop ${mindName}: only its owner can start it again`}
        className={`${btn} border-red-300 text-red-700 dark:border-red-800 dark:text-red-300`}
        disabled={busy !== null}
        onClick={() => void ask("stop")}
      >
        {busy === "stop" ? "Stopping…" : "Stop"}
      </button>
      {said && (
        <span role={said.ok ? "status" : "alert"} data-testid="control-result" data-ok={said.ok ? "true" : "false"} className={`text-xs ${said.ok ? "text-stone-700 dark:text-stone-300" : "text-red-700 dark:text-red-300"}`}>
          {said.text}
        </span>
      )}
    </section>
  );
}
