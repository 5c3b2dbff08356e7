// The mind's state in this browser as state sync (lib/sync/client/state-sync.ts)
// reads and writes it: the workspace files, the sealed summaries, the mind's
// record (settings, shell, pacing), and the book of what was last synced
// (a settings row `state-sync:<mind id>`, beside the sync record).
import { FileRecord } from "../../mind/state/state";
import { WireTier } from "../../sync/state-wire";
import { EMPTY_BOOK, sameStamp, StateBook } from "../../sync/client/state-book";
import { LocalChangedError, type LocalState } from "../../sync/client/state-sync";
import type { ReverieDb } from "../db/db";
import { AlreadySealedError, sealTier } from "../derived/tiers";
import { mindFiles } from "../minds/files";
import { getMind, listMinds, parseMind } from "../minds/minds";

export const stateBookKey = (mindId: string) => `state-sync:${mindId}`;

export function localState(db: ReverieDb, mindId: string): LocalState {
  const files = mindFiles(db, mindId);
  const seqOf = async (stepId: string) => (await db.steps.where("[mind_id+step_id]").equals([mindId, stepId]).first())?.seq;

  return {
    files: () => files.loadAll(),
    trajectories: async () => (await db.trajectories.where("mind_id").equals(mindId).toArray()).map((t) => t.traj_id),

    async tiers(traj) {
      const rows = await db.tiers.where("[mind_id+traj_id]").equals([mindId, traj]).toArray();
      // This database's seqs stay here: the server numbers its own.
      return rows.flatMap((row) => {
        const t = WireTier.safeParse(row);
        if (!t.success) return [];
        const { first_seq: _f, last_seq: _l, ...rest } = t.data;
        return [rest];
      });
    },

    async sealTiers(traj, tiers) {
      for (const t of tiers) {
        const [first, last] = [await seqOf(t.first_step), await seqOf(t.last_step)];
        const { first_seq: _f, last_seq: _l, ...rest } = t;
        try {
          await sealTier(db, mindId, traj, { ...rest, ...(first !== undefined && last !== undefined ? { first_seq: first, last_seq: last } : {}) });
        } catch (e) {
          if (!(e instanceof AlreadySealedError)) throw e;
        }
      }
    },

    async record() {
      const mind = await getMind(db, mindId);
      if (!mind) return undefined;
      const { shell, pacing_state, ...settings } = mind;
      return { settings, ...(shell ? { shell } : {}), ...(pacing_state ? { pacing: pacing_state } : {}) };
    },

    async saveRecord(change) {
      await db.transaction("rw", db.minds, async () => {
        const mind = await getMind(db, mindId);
        if (!mind) throw new Error(`No mind ${mindId} in this browser.`);
        const { shell, pacing_state, ...settings } = mind;
        const nextShell = change.shell ?? shell;
        const nextPacing = change.pacing ?? pacing_state;
        const next = parseMind({ ...(change.settings ?? settings), id: mind.id, ...(nextShell ? { shell: nextShell } : {}), ...(nextPacing ? { pacing_state: nextPacing } : {}) });
        if (!next) throw new Error("The server's settings for this mind do not fit this browser's; this browser's are kept.");
        await db.minds.put({ id: mindId, json: next });
      });
    },

    heldKeys: async () => (await listMinds(db)).flatMap((m) => (m.model.apiKey ? [m.model.apiKey] : [])),

    async book() {
      const row = await db.settings.get(stateBookKey(mindId));
      const parsed = StateBook.safeParse(row?.value);
      return parsed.success ? parsed.data : structuredClone(EMPTY_BOOK);
    },
    async saveBook(book) {
      await db.settings.put({ key: stateBookKey(mindId), value: JSON.parse(JSON.stringify(book)) });
    },

    async applyFiles({ put, remove, expect, book }) {
      await db.transaction("rw", db.files, db.settings, async () => {
        const rows = await db.files.bulkGet([...expect.keys()].map((p) => [mindId, p] as [string, string]));
        [...expect.values()].forEach((want, i) => {
          const row = rows[i] ? FileRecord.safeParse(rows[i]) : undefined;
          const now = row?.success ? row.data : null;
          if (want === null ? now !== null : !now || !sameStamp(now, want)) throw new LocalChangedError(`${[...expect.keys()][i]} changed in this browser while the server's copy was fetched`);
        });
        if (remove.length) await db.files.bulkDelete(remove.map((p) => [mindId, p] as [string, string]));
        if (put.length) await db.files.bulkPut(put.map((r) => ({ ...r, mind_id: mindId })));
        await db.settings.put({ key: stateBookKey(mindId), value: JSON.parse(JSON.stringify(book)) });
      });
    },
  };
}

/** Its owner's settings from the server's inbox (changed in a browser that did not hold the mind): this browser's record takes them, keeping its own key and what it keeps beside them. */
export async function takeSettings(db: ReverieDb, mindId: string, settings: Record<string, unknown>): Promise<void> {
  await db.transaction("rw", db.minds, async () => {
    const mind = await getMind(db, mindId);
    if (!mind) return;
    const { shell, pacing_state, running, panic_at, model } = mind;
    const given = typeof settings.model === "object" && settings.model !== null ? settings.model : {};
    const next = parseMind({ ...settings, model: { ...given, ...(model.apiKey ? { apiKey: model.apiKey } : {}) }, id: mind.id, running, ...(panic_at ? { panic_at } : {}), ...(shell ? { shell } : {}), ...(pacing_state ? { pacing_state } : {}) });
    if (next) await db.minds.put({ id: mindId, json: next });
  });
}
