"use client";
// What each mind's runner reports (role, status, streamed text, failure),
// kept outside React so a page reads just its own mind's slice and a
// streaming reply re-renders only what shows it.
import { useSyncExternalStore } from "react";
import type { MindStatus } from "@/lib/protocol";
import type { ReportLogEntry } from "@/lib/report/bug-report";
import type { RuntimeStatus } from "@/lib/shell/ports";
import type { AwayDigest } from "@/lib/sync/client/away-digest";
import type { HomeWhere } from "@/lib/store/view/hooks-home";

export type Role = "pending" | "runner" | "viewer";

export interface RunnerState {
  role: Role;
  status: MindStatus;
  /** The model's reply as it streams in. */
  partial: string;
  /** Why the mind could not run at all, if so. */
  fatal: string | null;
  /** Real Node for the mind (the page's WebContainer), as this tab's runner reports it. */
  runtime: RuntimeStatus;
  /** Where the mind lives, as this tab's runner knows it (a synced mind on a server with a runner). */
  home: HomeWhere | null;
  /** What it did while it lived elsewhere, when this tab took it back. */
  away: { digest: AwayDigest; setAside: number } | null;
}

const INITIAL: RunnerState = { role: "pending", status: { state: "starting" }, partial: "", fatal: null, runtime: { state: "off" }, home: null, away: null };

const states = new Map<string, RunnerState>();
const listeners = new Set<() => void>();

export function updateRunner(mindId: string, change: Partial<RunnerState>): void {
  states.set(mindId, { ...(states.get(mindId) ?? INITIAL), ...change });
  for (const l of listeners) l();
}

export function forgetRunner(mindId: string): void {
  states.delete(mindId);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useRunnerState(mindId: string): RunnerState {
  return useSyncExternalStore(
    subscribe,
    () => states.get(mindId) ?? INITIAL,
    () => INITIAL,
  );
}

/**
 * One part of the runner's state (a field, or a value kept in it: never a new object), so that a
 * component re-renders when that part changes, not on every status the runner posts (four a second).
 */
export function useRunnerPart<T>(mindId: string, part: (state: RunnerState) => T): T {
  return useSyncExternalStore(
    subscribe,
    () => part(states.get(mindId) ?? INITIAL),
    () => part(INITIAL),
  );
}

/** What the runner reports now (outside React: for handlers that need the run in flight). */
export function runnerState(mindId: string): RunnerState {
  return states.get(mindId) ?? INITIAL;
}

// The recent worker log of each mind, as this tab saw it: what its runner and
// worker reported (roles, status changes, errors, restarts, real Node), kept
// for a bug report. Bounded, so a mind that runs for weeks costs a fixed amount.

export const LOG_LIMIT = 500;

/** One line: when, how bad, who said it ("runner": this tab about its worker; "worker": the worker about itself). */
export type LogEntry = ReportLogEntry;

const logs = new Map<string, LogEntry[]>();

/** Add to a mind's log; the oldest entry goes once it holds LOG_LIMIT. Kept across the runner's unmounts (forgetRunner). */
export function logRunner(mindId: string, entry: Omit<LogEntry, "at"> & { at?: number }): void {
  let log = logs.get(mindId);
  if (!log) logs.set(mindId, (log = []));
  log.push({ at: entry.at ?? Date.now(), level: entry.level, from: entry.from, text: entry.text });
  if (log.length > LOG_LIMIT) log.splice(0, log.length - LOG_LIMIT);
}

/** A copy of a mind's log, oldest first. */
export function runnerLog(mindId: string): LogEntry[] {
  return [...(logs.get(mindId) ?? [])];
}

// The panic stop of the tab that runs a mind, so a button on its page can end the worker at once.
const panics = new Map<string, () => void>();

/** The runner offers its panic stop while it holds the mind; returns the withdrawal. */
export function offerPanic(mindId: string, panic: () => void): () => void {
  panics.set(mindId, panic);
  return () => {
    if (panics.get(mindId) === panic) panics.delete(mindId);
  };
}

/** Panic-stop the mind if this tab runs it; false when another tab does. */
export function panicHere(mindId: string): boolean {
  const panic = panics.get(mindId);
  panic?.();
  return panic !== undefined;
}
