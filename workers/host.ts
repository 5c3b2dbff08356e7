// Wires one mind: the store (Dexie), the workspace (just-bash over IndexedDB,
// loaded once its first model call is out: lib/shell/lazy-shell.ts),
// the model (the AI SDK, or lib/llm/chat-completions for chat-completions
// servers) and real timers, around lib/mind's loop. Runs in the
// mind's Web Worker; also importable by integration tests under Node.
import { createModelSource, modelLabel } from "../lib/llm/model";
import { modelPort } from "../lib/llm/complete";
import type { Price } from "../lib/mind/settings/model";
import { priceFor } from "../lib/llm/prices";
import { discoverProxy } from "../lib/llm/proxy";
import { budgetProblems } from "../lib/mind/budget/budget";
import { wireMind } from "../lib/home/wire-mind";
import { loadO200k } from "../lib/context/tokens";
import { replay } from "../lib/context/replay";
import { contextOf, replayLookups } from "../lib/store/derived/contexts";
import type { Clock, ModelPort } from "../lib/mind/ports";
import type { MindStatus } from "../lib/protocol";
import { lazyShell } from "../lib/shell/lazy-shell";
import type { RuntimePort } from "../lib/shell/ports";
import { listSkills, recordsReader, SKILLS_DIR } from "../lib/shell/skills";
import type { openPersistentFs } from "../lib/shell/persistent-fs";
import { filesUnder, filesWithin } from "../lib/store/minds/files";
import { SelfLedger } from "../lib/home/self-ledger";
import { fsSelfFiles, recordsSelfFiles } from "../lib/shell/self/files";
import { SELF_DIR } from "../lib/shell/self/paths";
import type { ReverieDb } from "../lib/store/db/db";
import type { Mind as MindRecord } from "../lib/store/minds/minds";
import { getPriceTable } from "../lib/store/minds/prices";
import { indexedDbMindState } from "../lib/store/state/mind-state";
import { lastSeq, parseRows } from "../lib/store/steps/steps";
import { watchOthers } from "../lib/store/steps/watch-others";
import { watchTables, type Watched } from "../lib/store/db/watch";
import { getSync } from "../lib/store/sync/sync";
import { serveCurationQueue, watchCurationQueue } from "../lib/store/minds/curations";
import { serveSelfChanges, watchSelfChanges } from "../lib/store/minds/self-changes";
import { applyCuration, sandboxCurationFs, type CurationFs } from "../lib/shell/curation";

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    }),
};

export interface HostEvents {
  onStatus: (status: MindStatus) => void;
  onPartial?: (text: string) => void;
  /** The human changed the settings (a `config` step appeared): run again with them. */
  onConfigChanged?: () => void;
}

export interface HostOptions {
  clock?: Clock;
  /** Real Node on the page (a WebContainer), when the mind's permissions switch it on. */
  runtime?: RuntimePort;
  /** The model, when a test supplies its own; otherwise built from the mind's settings. */
  model?: ModelPort;
}

export interface RunningMind {
  stop(): Promise<void>;
  /** Resolves when the loop has ended. */
  done: Promise<void>;
}

const ids = { uuid: () => crypto.randomUUID() };
/** How often the store is read for steps others appended, at most (a person's message waits this much longer, at worst). */
const WATCH_MS = 50;

export async function runMind(db: ReverieDb, mindId: string, events: HostEvents, options: HostOptions = {}): Promise<RunningMind> {
  const clock = options.clock ?? systemClock;
  // Everything the mind keeps, behind one port: steps (with their usage and what each call saw, one transaction a write), blobs, tiers, workspace, settings.
  // What a call saw is derived data: a record that cannot be stored is reported, never fatal.
  const onRecordError = (e: unknown) => console.warn(`Could not record what a model call saw: ${e instanceof Error ? e.message : String(e)}`);
  const state = indexedDbMindState(db, mindId, { onRecordError });
  // The token counter's table (a browser fetches it; the worker asked for it as it loaded) is needed before the first count.
  const [record] = await Promise.all([state.record(), loadO200k((path) => fetch(path))]);
  if (!record) throw new Error(`There is no mind ${mindId} in this browser (or its record is damaged).`);
  const mind = record.settings;
  // An unbounded bill is a start-up failure: no caps, no start.
  const capProblems = budgetProblems(mind.budget);
  if (!mind.budget || capProblems.length) throw new Error(`${mind.name} has no spend caps, so it does not start: set an hourly and a daily cap in Settings. (${capProblems.join(" ")})`);
  const caps = mind.budget;
  const model = options.model ?? (await mindModel(db, mind));
  // Summaries by the cheaper model its human picked (same provider and key), priced from the table like the mind's own; a test's model serves both.
  const summaryModel = mind.summary_model && !options.model ? await mindModel(db, { ...mind, model: { ...mind.model, model: mind.summary_model, price: undefined } }) : undefined;
  const { permissions } = mind;
  // Its own texts (self/), as its trajectory records them: set up at its first start, read from the saved rows until the workspace is open.
  const self = await SelfLedger.load({
    state,
    root: mindId,
    files: recordsSelfFiles(() => filesWithin(db, mindId, SELF_DIR), (put, remove) => state.files.save(put, remove), () => clock.now()),
    persona: mind.persona,
    clock,
    ids,
  });
  // The workspace and its sandbox (lib/shell/lazy-shell.ts): loaded once the first model call is out, so a mind wakes
  // without waiting for them; a block that comes sooner waits.
  let workspace: Awaited<ReturnType<typeof openPersistentFs>>["fs"] | null = null;
  let files: { fs: CurationFs; flush: () => Promise<void> } | null = null;
  const shell = lazyShell(async () => {
    const [{ openPersistentFs }, { justBashSandbox }] = await Promise.all([import("../lib/shell/persistent-fs"), import("../lib/shell/just-bash-sandbox")]);
    const { fs, flush } = await openPersistentFs(state.files, { maxBytes: permissions.limits.max_workspace_bytes });
    workspace = fs;
    files = { fs: sandboxCurationFs(fs), flush };
    self.useFiles(fsSelfFiles(fs, flush));
    return justBashSandbox({ fs, flush, permissions, ids, clock, fetch: (url, init) => fetch(url, init), runtime: permissions.webcontainer ? options.runtime : undefined });
  });
  // Skills for the prompt: from the workspace once it is open, before that from their saved rows (nothing has written since).
  const skills = () => (workspace ? listSkills(workspace) : filesUnder(db, mindId, SKILLS_DIR).then((rows) => listSkills(recordsReader(rows))));
  // The lease epoch this tab holds, as its sync record says (the page's home keeper sets it): followed while the mind runs.
  let epoch = (await getSync(db, mindId))?.epoch;
  const epochWatch = watchTables(db, ["settings"], () => getSync(db, mindId)).subscribe(
    (r) => {
      epoch = r?.epoch;
    },
    () => undefined,
  );
  const { loop, log, journal, stored } = wireMind({
    state,
    record,
    caps,
    root: mindId,
    clock,
    ids,
    model: warmOnFirstCall(model, () => void shell.warm().catch(() => undefined)),
    summaryModel,
    shell,
    self,
    // A try's sandbox: over a scratch copy of the workspace as it is now (in memory, never saved), no WebContainer.
    scratchShell: async () => {
      await shell.warm();
      const { scratchSandbox } = await import("../lib/shell/scratch-fs");
      if (!workspace) throw new Error("the workspace is not open");
      return scratchSandbox(workspace, { permissions, ids, clock, fetch: (url, init) => fetch(url, init) });
    },
    // What a past call saw, for a try to send the same: its record rebuilt whole from the steps and summaries it cited, or nothing.
    recordedCall: async (stepId) => {
      const seen = await contextOf(db, mindId, stepId);
      if (!seen || seen.missing.length) return undefined;
      const rebuilt = replay(seen.call, await replayLookups(db, mindId, seen.call));
      return rebuilt.missing.length ? undefined : { messages: rebuilt.messages, firstLook: seen.call.system.some((p) => p.kind === "first-look" || p.file === "first-look.md") };
    },
    skills,
    permissions,
    // Its wakes say where they ran, and under which lease epoch when this tab holds the mind's lease (a kept-alive mind).
    where: () => ({ home: "tab", ...(epoch !== undefined ? { epoch } : {}) }),
    onStatus: events.onStatus,
    onPartial: events.onPartial,
    onRecordError,
  });

  // Every step appended after this point by someone else (the page, another
  // tab) is offered to the mind's dispatcher. What the mind wrote itself it
  // already holds: its own writes do not make the watch read (watch-others),
  // and rows of its own that a read brings anyway are skipped before they are
  // parsed. Read at most every WATCH_MS, for a burst of others' writes.
  const unwatch = watchOthers(db, mindId, await lastSeq(db, mindId), (rows) => {
    const others = rows.filter((r) => !journal.wrote(r.step_id));
    const trajOf = new Map(others.map((r) => [r.seq, r.traj_id]));
    const theirs = parseRows(others);
    theirs.steps.forEach((step, i) => {
      if (trajOf.get(theirs.seqs[i]) === mindId) log.ingest(step);
      loop.notify(step);
    });
    if (theirs.steps.some((s) => s.type === "config")) events.onConfigChanged?.();
  }, { everyMs: WATCH_MS });

  // People's changes wait in queues while it runs here, served one at a time, in order: each is made where its files
  // are held (its sandbox), then recorded. A queue's watch serves it whenever it holds something.
  let serving = Promise.resolve();
  const served = <T>(queue: Watched<T[]>, serve: () => Promise<void>, what: string) =>
    queue.subscribe(
      (waiting) => {
        if (!waiting.length) return;
        serving = serving.then(serve).catch((e: unknown) => console.warn(`Could not make a change to ${what}: ${e instanceof Error ? e.message : String(e)}`));
      },
      () => undefined,
    );
  // Its memory and goals (the Memory tab, an operator's page): made and saved, then its step is written, which
  // reaches the loop as another's step does.
  const curationWatch = served(
    watchCurationQueue(db, mindId),
    () =>
      serveCurationQueue(db, mindId, async (c) => {
        await shell.warm();
        if (!files) throw new Error("the workspace is not open");
        const step = await applyCuration(files.fs, c, clock.now(), ids);
        await files.flush();
        return step;
      }),
    "the mind's memory",
  );
  // Its own texts (Settings, Files): made through its ledger once the workspace is open (the texts are then read and
  // written there), recorded as a self-edit under the change's id through its journal, so it is offered to the mind
  // here: the change cuts an idle wait short.
  const selfWatch = served(
    watchSelfChanges(db, mindId),
    () =>
      serveSelfChanges(db, mindId, async (c) => {
        await shell.warm();
        const step = await self.apply(c);
        loop.notify(step);
        return step;
      }),
    "the mind's own texts",
  );

  // Writes go behind the loop (CachedLog): the mind is done once they are stored.
  const done = loop.start().finally(async () => {
    curationWatch.unsubscribe();
    selfWatch.unsubscribe();
    await serving;
    unwatch();
    epochWatch.unsubscribe();
    await stored();
  });
  return {
    done,
    async stop() {
      await loop.stop();
      await stored();
    },
  };
}

/**
 * The model, which starts `warm` once its first call is under way: the sandbox then loads (on the worker's one
 * thread) while the request is out, not before it is sent.
 */
function warmOnFirstCall(model: ModelPort, warm: () => void): ModelPort {
  let warmed = false;
  return {
    name: model.name,
    complete(req) {
      const reply = model.complete(req);
      if (!warmed) {
        warmed = true;
        setTimeout(warm, 0);
      }
      return reply;
    },
  };
}

/** The app's origin, where the host's proxy answers (undefined under Node). */
const appOrigin = (): string | undefined => (globalThis as { location?: { origin?: string } }).location?.origin;

/**
 * The mind's model, priced: the proxy's own price for its models, else the
 * price its human gave, else this browser's table. A model whose price is
 * unknown would make the caps meaningless, so it does not start (a local
 * OpenAI-compatible server without a price counts as free).
 */
async function mindModel(db: ReverieDb, mind: MindRecord): Promise<ModelPort> {
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
