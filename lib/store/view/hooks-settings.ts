// React hooks for a mind's settings and money: this browser's price table,
// what a mind spent, its recent `config` steps, and the writers the forms call
// (create a mind, save its settings, save the prices), bound to the database.
"use client";
import { useLiveQuery, useObservable } from "dexie-react-hooks";
import { useEffect, useState } from "react";
import type { PriceTable } from "../../mind/settings/model";
import { db, requestPersistence } from "../db/db";
import { watchTables } from "../db/watch";
import { spendSummary, type SpendSummary } from "../derived/usage";
import { createMind, NewMindInput, SettingsInput, updateSettings } from "../minds/minds";
import { getPriceTable, setPriceTable } from "../minds/prices";
import { recentConfigSteps, type ConfigStep } from "../steps/config-steps";
import type { MindSettings } from "../../mind/settings/settings";

export function usePriceTable(): PriceTable | undefined {
  return useObservable(() => watchTables(db(), ["settings"], () => getPriceTable(db())), []);
}

/**
 * Read every 2 s, not on every new usage row: a mind on a fast model writes
 * tens of rows a second, and a page that re-read the day's rows on each would
 * compete with the mind's own writes.
 */
export function useSpend(mindId: string): SpendSummary | undefined {
  const [spend, setSpend] = useState<SpendSummary>();
  useEffect(() => {
    let live = true;
    const read = () => void spendSummary(db(), mindId, Date.now()).then((s) => live && setSpend(s), () => undefined);
    read();
    const t = setInterval(read, SPEND_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [mindId]);
  return spend;
}

const SPEND_REFRESH_MS = 2000;

/** A mind's newest `limit` config steps, newest first, live: undefined while loading. */
export function useConfigSteps(mindId: string, limit: number): ConfigStep[] | undefined {
  return useLiveQuery(() => recentConfigSteps(db(), mindId, limit), [mindId, limit]);
}

/** What the new-mind form and a mind's Settings tab do: check what was typed as the writer will, then write. */
export interface MindActions {
  /** Every problem with a new mind's fields at once; nothing is saved. */
  checkNew: (input: unknown) => ReturnType<typeof NewMindInput.safeParse>;
  /** Save the mind and its first steps, then ask the browser to keep this origin's data (best effort: a mind's life is in IndexedDB). */
  create: (input: NewMindInput) => Promise<MindSettings>;
  checkSettings: (input: unknown) => ReturnType<typeof SettingsInput.safeParse>;
  /** Save the settings and record them as a `config` step (the running tab's worker restarts on it). */
  saveSettings: (mindId: string, input: SettingsInput) => Promise<MindSettings>;
}

const MIND_ACTIONS: MindActions = {
  checkNew: (input) => NewMindInput.safeParse(input),
  create: async (input) => {
    const mind = await createMind(db(), input);
    void requestPersistence();
    return mind;
  },
  checkSettings: (input) => SettingsInput.safeParse(input),
  saveSettings: (mindId, input) => updateSettings(db(), mindId, input),
};

export function useMindActions(): MindActions {
  return MIND_ACTIONS;
}

/** This browser's price table: saved whole; running minds use it from their next start. */
export interface PriceActions {
  save: (table: PriceTable) => Promise<void>;
}

const PRICE_ACTIONS: PriceActions = { save: (table) => setPriceTable(db(), table) };

export function usePriceActions(): PriceActions {
  return PRICE_ACTIONS;
}
