"use client";
// What each mind's runner reports (role, status, streamed text, failure),
// kept outside React so a page reads just its own mind's slice and a
// streaming reply re-renders only what shows it.
import { useSyncExternalStore } from "react";
import type { MindStatus } from "@/lib/protocol";
import type { RuntimeStatus } from "@/lib/shell/ports";

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
}

const INITIAL: RunnerState = { role: "pending", status: { state: "starting" }, partial: "", fatal: null, runtime: { state: "off" } };

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
