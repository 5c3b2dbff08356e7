// React hooks over the database: live queries that re-render on every change,
// in this tab or another (Dexie broadcasts changes between tabs and workers).
"use client";
import { useLiveQuery, useObservable } from "dexie-react-hooks";
import { useEffect, useMemo, useState } from "react";
import { getArchive, listArchives, type ImportedArchive } from "../minds/archives";
import { db } from "../db/db";
import { watchTables } from "../db/watch";
import { listWorkspace, readWorkspaceFile, type WorkspaceEntry } from "../minds/files";
import { saveFromFiles } from "../minds/self-changes";
import { getMind, listMinds, panicStop, requestPanic, setRunning } from "../minds/minds";
import { drainDoor } from "../steps/door";
import { mindConversations } from "../steps/chat";
import type { Conversation } from "../../trajectory/chat";
import { sendMessage } from "../steps/messages";
import { getSenderName, setSenderName } from "../minds/settings";
import { importIntoDb, importLockName, sweepUnfinishedImports } from "../exchange/import";
import { pageSource, rowSource } from "./view";
import type { StepSource } from "../../trajectory/source";
import { browserSync, getSync, pendingSteps, runSyncInThisTab, type ShareActions } from "../sync/sync";
import type { SyncRecord } from "../../sync/client/engine";
import type { FileRecord } from "../../shell/persistent-fs";
import { readTimeline, timelineStepsOf, usageRowsSince } from "../steps/timeline";
import { rowsAfter, watchRows } from "../steps/steps";
import type { UsageRow } from "../db/db";
import type { Step } from "../../trajectory/schema";
import type { ReplayLookups, SeenCall } from "../../context/replay";
import { LIVE_MS } from "../../trajectory/rows";
import { filterNotes, readMindNotes, type MindNotes } from "../minds/memory";
import { contextOf, contextsOfRun, replayLookups, type StoredSeen } from "../derived/contexts";
import { exportArchive } from "../exchange/export-file";
import type { MindSettings } from "../../mind/settings/settings";

export function useMinds(): MindSettings[] | undefined {
  return useObservable(() => watchTables(db(), ["minds"], () => listMinds(db())), []);
}

/** undefined while loading, null when there is no such mind. */
export function useMind(id: string): MindSettings | null | undefined {
  return useObservable(() => watchTables(db(), ["minds"], () => getMind(db(), id)), [id]);
}

/** The viewer's source for a mind in this browser (it grows) or an imported archive (it does not). */
export function useLocalSource(owner: string, kind: "mind" | "archive"): StepSource {
  // A live mind keeps a row per step; an imported archive keeps pages of lines.
  return useMemo(() => (kind === "mind" ? rowSource(db(), owner) : pageSource(db(), owner)), [owner, kind]);
}

function useSenderName(): string | undefined {
  return useObservable(() => watchTables(db(), ["settings"], () => getSenderName(db())), []);
}

/** Writing to a mind: who you are, and sending. A guest on a shared link gets the same from a server. */
export interface Messaging {
  /** undefined while loading. */
  sender: string | undefined;
  setSender: (name: string) => void;
  /** Rejects with a readable error (the text stays where it was typed). */
  send: (content: string) => Promise<void>;
}

/** Messages typed in this browser land in the mind's trajectory as `message` steps. */
export function useLocalMessaging(mindId: string, mindName: string): Messaging {
  const sender = useSenderName();
  return useMemo(
    () => ({
      sender,
      setSender: (name) => void setSenderName(db(), name),
      send: async (content) => {
        await sendMessage(db(), mindId, { from: sender ?? "you", to: mindName, content });
      },
    }),
    [sender, mindId, mindName],
  );
}

export function useArchive(id: string): ImportedArchive | null | undefined {
  return useObservable(() => watchTables(db(), ["minds"], () => getArchive(db(), id)), [id]);
}

export function useArchives(): ImportedArchive[] | undefined {
  return useObservable(() => watchTables(db(), ["minds"], () => listArchives(db())), []);
}

/** A mind's workspace, paths, kinds and sizes (no bytes): follows the worker's saves. */
export function useWorkspaceTree(mindId: string): WorkspaceEntry[] | undefined {
  return useLiveQuery(() => listWorkspace(db(), mindId), [mindId]);
}

/** One workspace entry with its bytes: undefined while loading, null when it is not there. */
export function useWorkspaceFile(mindId: string, path: string | null): FileRecord | null | undefined {
  return useLiveQuery(() => (path === null ? null : readWorkspaceFile(db(), mindId, path)), [mindId, path]);
}

/** What the human may do to a mind's workspace; refused while the mind runs (but for its own texts, which its worker then changes). */
export function useWorkspaceActions(mindId: string): { save: (path: string, text: string) => Promise<void> } {
  return useMemo(() => ({ save: async (path, text) => saveFromFiles(db(), mindId, path, text, await getSenderName(db())) }), [mindId]);
}

/** A mind's goals and memories, live (re-read as the worker saves its workspace), those matching `query` (all for a blank one): undefined while loading. */
export function useMindNotes(mindId: string, query = ""): MindNotes | undefined {
  const notes = useLiveQuery(() => readMindNotes(db(), mindId), [mindId]);
  return useMemo(() => (notes ? filterNotes(notes, query) : undefined), [notes, query]);
}

/** What one owner's model calls saw, as recorded in this browser. */
export interface SeenRecords {
  /** Every recorded call of a run, in order. */
  ofRun: (runId: string) => Promise<StoredSeen[]>;
  /** The recorded call that led to a step, if there is one. */
  ofStep: (stepId: string) => Promise<StoredSeen | undefined>;
  /** The steps and sealed summaries a call cites, for replaying it. */
  lookups: (call: SeenCall) => Promise<ReplayLookups>;
}

/** null for a source without an owner in this browser (an imported archive keeps no records). */
export function useSeenRecords(owner: string | undefined): SeenRecords | null {
  return useMemo(
    () =>
      owner
        ? {
            ofRun: (runId) => contextsOfRun(db(), owner, runId),
            ofStep: (stepId) => contextOf(db(), owner, stepId),
            lookups: (call) => replayLookups(db(), owner, call),
          }
        : null,
    [owner],
  );
}

/** A mind or an imported trajectory as one Headlong-layout .tar.gz to download. */
export function useExportArchive(): (owner: string, name: string) => Promise<{ blob: Blob; fileName: string }> {
  return exportArchive;
}

/** A mind's conversations, per person: undefined while loading, null when there is no such mind. */
export function useChat(mindId: string): Conversation[] | null | undefined {
  return useLiveQuery(() => mindConversations(db(), mindId), [mindId]);
}

export interface MindControls {
  /** Start or Stop: the tab that runs the mind follows the flag. */
  setRunning: (on: boolean) => Promise<void>;
  /** From a tab that only views the mind: ask the runner's tab for a panic stop. */
  requestPanic: () => Promise<void>;
  /** In the runner's tab, once its worker is gone: record the panic stop and stop the mind. */
  recordPanic: (runId?: string) => Promise<void>;
  /** In the runner's tab of a stopped mind with no worker: what was handed in at its door is appended now (no writer is there to take it). */
  appendWaiting: () => Promise<void>;
}

export function useMindControls(mindId: string): MindControls {
  return useMemo(
    () => ({
      setRunning: (on) => setRunning(db(), mindId, on),
      requestPanic: () => requestPanic(db(), mindId),
      recordPanic: async (runId) => {
        await panicStop(db(), mindId, runId);
        // What was handed in and not yet taken by the worker it ended is appended now, after the stop.
        await drainDoor(db(), mindId);
      },
      appendWaiting: async () => void (await drainDoor(db(), mindId)),
    }),
    [mindId],
  );
}

export interface ImportActions {
  /** Import a trajectory file into this browser; resolves with the new archive's id. */
  importFile: (file: File, opts: Omit<Parameters<typeof importIntoDb>[2], "name">) => ReturnType<typeof importIntoDb>;
  /** Remove what imports cut off by a closed tab left behind (not those under way in another tab). */
  sweepUnfinished: () => Promise<void>;
}

export function useImportActions(): ImportActions {
  return useMemo(
    () => ({
      importFile: (file, opts) => importIntoDb(db(), file, { ...opts, name: file.name }),
      sweepUnfinished: async () => {
        const held = new Set(((await navigator.locks?.query?.())?.held ?? []).map((l) => l.name));
        await sweepUnfinishedImports(db(), (id) => held.has(importLockName(id)));
      },
    }),
    [],
  );
}

export interface SyncStatus {
  /** null: this mind has never been synced. */
  record: SyncRecord | null;
  /** Steps in this browser the server does not have yet. */
  pending: number;
}

/**
 * A mind's sync state and links, live across tabs: undefined while loading.
 * Not a live query: one heard every step its mind wrote (tens a second) and
 * gathered each one's keys on the page's main thread. The record is read
 * again when the settings change; the pending count, while sync is on, at
 * most every LIVE_MS as steps are written.
 */
export function useSyncStatus(mindId: string): SyncStatus | undefined {
  return useObservable(
    () =>
      watchTables(
        db(),
        ["settings"],
        async () => {
          const record = await getSync(db(), mindId);
          return { record, pending: record?.enabled ? await pendingSteps(db(), mindId, record.local_seq ?? record.last_seq) : 0 };
        },
        { tables: ["steps"], everyMs: LIVE_MS, when: (s) => !!s.record?.enabled },
      ),
    [mindId],
  );
}

/** Sharing a mind: sync on/off, make and revoke links, the server's list of them. */
export function useShareActions(mindId: string): ShareActions {
  return useMemo(() => browserSync(db(), mindId).actions, [mindId]);
}

/** Keep the mind synced while this component is mounted (one tab at a time does the work). */
export function useSyncRunner(mindId: string): void {
  useEffect(() => {
    const abort = new AbortController();
    runSyncInThisTab(db(), mindId, abort.signal);
    return () => abort.abort();
  }, [mindId]);
}

/**
 * A mind's steps of the kinds its timeline draws, from `sinceMs` on (null:
 * its whole life), then every new one as it is appended: undefined while loading.
 */
export function useTimelineSteps(mindId: string, sinceMs: number | null): Step[] | undefined {
  const [steps, setSteps] = useState<{ key: string; steps: Step[] }>();
  const key = `${mindId}:${sinceMs}`;
  useEffect(() => {
    let unwatch: (() => void) | null = null;
    let live = true;
    void readTimeline(db(), mindId, sinceMs).then(({ steps: read, lastSeq }) => {
      if (!live) return;
      setSteps({ key, steps: read });
      unwatch = watchRows(
        lastSeq,
        (seq) => rowsAfter(db(), mindId, seq),
        (rows) => {
          const more = timelineStepsOf(rows);
          if (more.length) setSteps((s) => (s?.key === key ? { key, steps: [...s.steps, ...more] } : s));
        },
      );
    });
    return () => {
      live = false;
      unwatch?.();
    };
  }, [mindId, sinceMs, key]);
  // A window just changed: show nothing stale while the new one loads.
  return steps?.key === key ? steps.steps : undefined;
}

/** Read every 2 s, as the spend line is (useSpend in ./hooks-settings.ts), so the two agree. */
const USAGE_REFRESH_MS = 2000;

/**
 * A mind's usage rows (one per model call) from `sinceMs` on: undefined while
 * loading. Open-ended, they are re-read every 2 s; with `beforeMs` (a past
 * that no longer changes) they are read once.
 */
export function useUsageRows(mindId: string, sinceMs: number, beforeMs?: number): UsageRow[] | undefined {
  const [rows, setRows] = useState<UsageRow[]>();
  useEffect(() => {
    let live = true;
    const read = () => void usageRowsSince(db(), mindId, sinceMs, beforeMs).then((r) => live && setRows(r), () => undefined);
    read();
    const t = beforeMs === undefined ? setInterval(read, USAGE_REFRESH_MS) : undefined;
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [mindId, sinceMs, beforeMs]);
  return rows;
}
