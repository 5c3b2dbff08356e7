// React hooks over the database: live queries that re-render on every change,
// in this tab or another (Dexie broadcasts changes between tabs and workers).
"use client";
import { useLiveQuery } from "dexie-react-hooks";
import { useMemo } from "react";
import { getArchive, listArchives, type ImportedArchive } from "./archives";
import { db } from "./db";
import { listWorkspace, readWorkspaceFile, saveWorkspaceFile, type WorkspaceEntry } from "./files";
import { getMind, listMinds, panicStop, requestPanic, setRunning, type Mind } from "./minds";
import { mindConversations } from "./chat";
import type { Conversation } from "../trajectory/chat";
import { sendMessage } from "./messages";
import { getSenderName, setSenderName } from "./settings";
import { importIntoDb, importLockName, sweepUnfinishedImports } from "./import";
import { pageSource, rowSource, type StepSource } from "./view";
import type { FileRecord } from "../shell/persistent-fs";

export function useMinds(): Mind[] | undefined {
  return useLiveQuery(() => listMinds(db()), []);
}

/** undefined while loading, null when there is no such mind. */
export function useMind(id: string): Mind | null | undefined {
  return useLiveQuery(() => getMind(db(), id), [id]);
}

/** The viewer's source for a mind in this browser (it grows) or an imported archive (it does not). */
export function useLocalSource(owner: string, kind: "mind" | "archive"): StepSource {
  // A live mind keeps a row per step; an imported archive keeps pages of lines.
  return useMemo(() => (kind === "mind" ? rowSource(db(), owner) : pageSource(db(), owner)), [owner, kind]);
}

function useSenderName(): string | undefined {
  return useLiveQuery(() => getSenderName(db()), []);
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
  return useLiveQuery(() => getArchive(db(), id), [id]);
}

export function useArchives(): ImportedArchive[] | undefined {
  return useLiveQuery(() => listArchives(db()), []);
}

/** A mind's workspace, paths, kinds and sizes (no bytes): follows the worker's saves. */
export function useWorkspaceTree(mindId: string): WorkspaceEntry[] | undefined {
  return useLiveQuery(() => listWorkspace(db(), mindId), [mindId]);
}

/** One workspace entry with its bytes: undefined while loading, null when it is not there. */
export function useWorkspaceFile(mindId: string, path: string | null): FileRecord | null | undefined {
  return useLiveQuery(() => (path === null ? null : readWorkspaceFile(db(), mindId, path)), [mindId, path]);
}

/** What the human may do to a mind's workspace; refused while the mind runs. */
export function useWorkspaceActions(mindId: string): { save: (path: string, text: string) => Promise<void> } {
  return useMemo(() => ({ save: (path, text) => saveWorkspaceFile(db(), mindId, path, text) }), [mindId]);
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
}

export function useMindControls(mindId: string): MindControls {
  return useMemo(
    () => ({
      setRunning: (on) => setRunning(db(), mindId, on),
      requestPanic: () => requestPanic(db(), mindId),
      recordPanic: async (runId) => {
        await panicStop(db(), mindId, runId);
      },
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
