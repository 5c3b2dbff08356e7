"use client";
import { useEffect, useState } from "react";
import type { MindStatus } from "@/lib/protocol";
import { useShortcut } from "../shortcuts/useShortcut";
import type { Role } from "../runner/runner-store";

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

const CAPS: Record<string, string> = {
  hour: "its hourly cap",
  day: "its daily cap",
  client_hour: "the proxy's hourly cap for this browser",
  client_day: "the proxy's daily cap for this browser",
  global_day: "the proxy's daily cap",
  request: "the proxy's per-request cap",
};

/** Which cap, and when it resets (local time; the periods themselves are UTC hours and days). */
function capText(p: Extract<MindStatus, { state: "paused" }>): string {
  const at = new Date(p.resetsAt);
  const sameDay = at.toDateString() === new Date().toDateString();
  const when = sameDay ? at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : at.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  return `${CAPS[p.cap] ?? p.cap} of $${p.limitUsd.toFixed(2)} is reached; resumes at ${when} or when its human raises the cap`;
}

function statusText(status: MindStatus): string {
  switch (status.state) {
    case "starting":
      return "starting…";
    case "thinking":
      return status.iteration ? `thinking (step ${status.iteration})` : "thinking";
    case "waiting":
      return status.lastError ? "waiting to retry" : "waiting";
    case "paused":
      return `paused: budget — ${capText(status)}`;
    case "stopped":
      return "stopped";
    case "viewing":
      return "viewing — another tab runs this mind";
  }
}

function viewingText(running: boolean | undefined): string {
  return running === false ? "viewing — stopped; another tab holds this mind" : statusText({ state: "viewing" });
}

export function StatusBar(props: { status: MindStatus; role: Role; running: boolean | undefined; onStart: () => void; onStop: () => void; onPanic: () => void }) {
  const { status, role } = props;
  const now = useNow(status.state === "waiting");
  const next = status.state === "waiting" ? Math.max(0, Math.ceil((status.nextWakeAt - now) / 1000)) : null;
  const error = (status.state === "waiting" || status.state === "stopped") && status.lastError ? status.lastError : null;
  // The runner tab knows from its worker; a viewing tab goes by the mind's flag,
  // which the runner (in another tab) follows.
  const isStopped = role === "runner" ? status.state === "stopped" : props.running === false;
  const canControl = role === "runner" || (role === "viewer" && props.running !== undefined);
  // "." is no browser's shortcut, and one key stops a mind in a hurry (Panic stop stays a click).
  useShortcut(
    ".",
    () => {
      if (!canControl || isStopped) return false;
      props.onStop();
    },
    "Stop the mind (winds the run down)",
  );
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm">
      <span
        data-testid="mind-status"
        className={`rounded px-2 py-0.5 font-medium ${status.state === "thinking" ? "bg-indigo-100 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200" : status.state === "paused" ? "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200" : "bg-stone-200 dark:bg-stone-800"}`}
        aria-live="polite"
      >
        {status.state === "viewing" ? viewingText(props.running) : statusText(status)}
      </span>
      <span data-testid="next-wake" className="text-stone-500 dark:text-stone-400">
        {next === null ? "" : next === 0 ? "next thought now" : `next thought in ${next} s`}
      </span>
      <span className="ml-auto flex gap-2">
        <button
          type="button"
          data-testid="mind-start"
          onClick={props.onStart}
          disabled={!canControl || !isStopped}
          className="min-h-10 rounded border border-stone-300 px-3 py-1 hover:bg-stone-100 disabled:opacity-40 sm:min-h-0 dark:border-stone-700 dark:hover:bg-stone-900"
        >
          Start
        </button>
        <button
          type="button"
          data-testid="mind-stop"
          aria-keyshortcuts="."
          onClick={props.onStop}
          disabled={!canControl || isStopped}
          className="min-h-10 rounded border border-stone-300 px-3 py-1 hover:bg-stone-100 disabled:opacity-40 sm:min-h-0 dark:border-stone-700 dark:hover:bg-stone-900"
        >
          Stop
        </button>
        <button
          type="button"
          data-testid="panic-stop"
          onClick={props.onPanic}
          disabled={!canControl || isStopped}
          aria-label="Panic stop: end the run in flight at once, even a hung command or model call"
          className="min-h-10 rounded bg-red-600 px-3 py-1 font-medium text-white sm:min-h-0 hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-40"
        >
          Panic stop
        </button>
      </span>
      {error && (
        <p role="alert" data-testid="mind-error" className="w-full rounded bg-red-50 px-2 py-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
          {error}
        </p>
      )}
    </div>
  );
}
