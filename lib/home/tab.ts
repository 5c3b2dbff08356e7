// The tab's home: a mind in this browser's IndexedDB, run by its Web Worker
// (workers/mind.worker.ts), also importable by tests under Node. What only a
// tab has: the model built from the mind's settings and this browser's price
// table (or the host's proxy), the workspace opened once the first model call
// is out, real Node on the page when its permissions switch it on, and the
// lease epoch this tab holds when its mind is kept alive on the server.
import { replay } from "../context/replay";
import { loadO200k } from "../context/tokens";
import { modelPort } from "../llm/complete";
import { createModelSource, modelLabel } from "../llm/model";
import type { Price } from "../mind/settings/model";
import { priceFor } from "../llm/prices";
import { discoverProxy } from "../llm/proxy";
import type { Emit } from "../mind/events";
import type { Clock, ModelPort } from "../mind/ports";
import type { MindSettings } from "../mind/settings/settings";
import type { RuntimePort } from "../shell/ports";
import type { ReverieDb } from "../store/db/db";
import { watchTables } from "../store/db/watch";
import { contextOf, replayLookups } from "../store/derived/contexts";
import { getPriceTable } from "../store/minds/prices";
import { indexedDbMindState } from "../store/state/mind-state";
import { getSync } from "../store/sync/sync";
import type { Home } from "./home";
import { startMind } from "./start";
import { systemClock, systemIds } from "../system/system";

export interface TabOptions {
  clock?: Clock;
  /** Real Node on the page (a WebContainer), when the mind's permissions switch it on. */
  runtime?: RuntimePort;
  /** The model, when a test supplies its own (it serves the summaries too); otherwise built from the mind's settings. */
  model?: ModelPort;
}

export interface RunningMind {
  stop(): Promise<void>;
  /** Resolves when the loop has ended and its steps are stored. */
  done: Promise<void>;
}

export async function runMind(db: ReverieDb, mindId: string, emit: Emit, options: TabOptions = {}): Promise<RunningMind> {
  const clock = options.clock ?? systemClock;
  // The token counter's table (a browser fetches it; the worker asked for it as it loaded) is needed before the first count.
  const table = loadO200k((path) => fetch(path));
  table.catch(() => undefined); // said when the model is asked for (a mind that cannot start earlier never asks)
  // The lease epoch this tab holds, as its sync record says (the page's home keeper sets it): followed while the mind runs.
  let epoch = (await getSync(db, mindId))?.epoch;
  const epochWatch = watchTables(db, ["settings"], () => getSync(db, mindId)).subscribe(
    (r) => {
      epoch = r?.epoch;
    },
    () => undefined,
  );
  const home: Home = {
    // What a call saw is derived data: a record that cannot be stored is reported, never fatal.
    state: indexedDbMindState(db, mindId, { onRecordError: (e) => emit({ type: "record-error", error: e instanceof Error ? e.message : String(e) }) }),
    clock,
    ids: systemIds,
    // Its wakes say where they ran, and under which lease epoch when this tab holds the mind's lease (a kept-alive mind).
    where: () => ({ home: "tab", ...(epoch !== undefined ? { epoch } : {}) }),
    model: async (settings) => {
      await table;
      return options.model ?? (await mindModel(db, settings));
    },
    network: (settings) => ({ permissions: settings.permissions, fetch: (url, init) => fetch(url, init), ...(options.runtime ? { runtime: options.runtime } : {}) }),
    options: {
      lazyWorkspace: true,
      // What a past call saw, for a try to send the same: its record rebuilt whole from the steps and summaries it cited, or nothing.
      recordedCall: async (stepId) => {
        const seen = await contextOf(db, mindId, stepId);
        if (!seen || seen.missing.length) return undefined;
        const rebuilt = replay(seen.call, await replayLookups(db, mindId, seen.call));
        return rebuilt.missing.length ? undefined : { messages: rebuilt.messages, firstLook: seen.call.system.some((p) => p.kind === "first-look" || p.file === "first-look.md") };
      },
    },
  };
  let started;
  try {
    started = await startMind(home, emit);
  } catch (e) {
    epochWatch.unsubscribe();
    throw e;
  }
  const done = started.done.finally(() => epochWatch.unsubscribe());
  return { done, stop: () => started.stop() };
}

/** The app's origin, where the host's proxy answers (undefined under Node). */
const appOrigin = (): string | undefined => (globalThis as { location?: { origin?: string } }).location?.origin;

/**
 * The mind's model, priced: the proxy's own price for its models, else the
 * price its human gave, else this browser's table. A model whose price is
 * unknown would make the caps meaningless, so it does not start (a local
 * OpenAI-compatible server without a price counts as free).
 */
async function mindModel(db: ReverieDb, mind: MindSettings): Promise<ModelPort> {
  const s = mind.model;
  let price: Price | undefined;
  if (s.provider === "proxy") {
    const offer = await discoverProxy(appOrigin() ?? "");
    price = (offer.available ? offer.models.find((m) => m.id === s.model)?.price : undefined) ?? s.price;
  } else {
    price = priceFor(s, await getPriceTable(db)) ?? (s.provider === "openai-compatible" ? { input: 0, output: 0 } : undefined);
  }
  if (!price) throw new Error(`No price is known for ${modelLabel(s)}, so its spend caps could not be kept: give its price per million tokens in Settings.`);
  return modelPort(await createModelSource(s, { origin: appOrigin() }), modelLabel(s), { price });
}
