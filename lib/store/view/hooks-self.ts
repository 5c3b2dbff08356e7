// React hooks for a mind's own texts (/workspace/self/): what they say now
// (its saved rows), the changes to them (its self-edit steps, newest first),
// and the owner's change (write or revert), followed to its step.
"use client";
import { useLiveQuery } from "dexie-react-hooks";
import { useCallback } from "react";
import { SELF_FILES, type SelfFile } from "../../mind/self/self";
import type { SelfChange } from "../../shell/self/change";
import { sha256 } from "../../shell/self/edit";
import { SELF_DIR } from "../../shell/self/paths";
import type { Step, StepOf } from "../../trajectory/schema";
import { db } from "../db/db";
import { filesWithin } from "../minds/files";
import { getSenderName } from "../minds/settings";
import { changeSelf } from "../minds/self-changes";
import { recentStepsOfKind } from "../steps/config-steps";
import { stepWritten } from "../steps/steps";
import { systemIds } from "../../system/system";

/** The texts as the mind's saved rows hold them (a running mind saves after each block); null: it has none yet (it writes them at its first start). */
export function useSelfTexts(mindId: string): Map<SelfFile, string> | null | undefined {
  return useLiveQuery(async () => {
    const rows = await filesWithin(db(), mindId, SELF_DIR);
    const out = new Map<SelfFile, string>();
    for (const file of SELF_FILES) {
      const row = rows.find((r) => r.path === `${SELF_DIR}/${file}`);
      if (row?.kind === "file") out.set(file, new TextDecoder().decode(row.data ?? new Uint8Array()));
    }
    return out.size ? out : null;
  }, [mindId]);
}

/** The newest `limit` changes to its texts, newest first, live. */
export function useSelfEdits(mindId: string, limit: number): StepOf<"self-edit">[] | undefined {
  return useLiveQuery(() => recentStepsOfKind(db(), mindId, "self-edit", limit), [mindId, limit]);
}

/** What the page asks: a file's new text (with the text it was edited from), or a revert of a change. */
export type SelfAsk = { op: "write"; file: SelfFile; text: string; from: string; via: "files" | "settings" } | { op: "revert"; of: string };

/**
 * Make a change (now, or by its worker when it runs), and resolve with the
 * step that records it: the self-edit, or the error that says why not; null
 * when `signal` ended the wait first.
 */
export function useSelfChange(mindId: string): (ask: SelfAsk, signal: AbortSignal) => Promise<Step | null> {
  return useCallback(
    async (ask, signal) => {
      const by = await getSenderName(db());
      const id = systemIds.uuid();
      // The text it was edited from, by hash: a change made meanwhile (by the mind) refuses this one rather than being overwritten.
      const c: SelfChange = ask.op === "write" ? { op: "write", id, file: ask.file, text: ask.text, base: await sha256(ask.from), by, via: ask.via } : { op: "revert", id, of: ask.of, by };
      const done = await changeSelf(db(), mindId, c);
      if ("step" in done) return done.step;
      return stepWritten(db(), mindId, id, signal);
    },
    [mindId],
  );
}
