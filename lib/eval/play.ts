// Playing a scenario (issue 23): the real mind (lib/home/wire-mind.ts, the
// wiring every home uses) over the in-memory store, just-bash over an
// in-memory workspace, and the simulated clock. People's messages are
// appended at their hours as a tab appends them; every wait is skipped while
// model calls and blocks take their real time. What it returns is what the
// scorer reads (score.ts).
import { wireMind } from "../home/wire-mind";
import type { ModelSettings } from "../mind/settings/model";
import { MemoryMindState } from "../mind/state/memory-state";
import { DEFAULT_PACING } from "../mind/pacing/pacing";
import type { Ids, ModelPort, ShellPort } from "../mind/ports";
import type { FileRecord } from "../mind/state/state";
import { justBashSandbox } from "../shell/just-bash-sandbox";
import { WORKSPACE } from "../shell/limits";
import { openPersistentFs } from "../shell/persistent-fs";
import { listSkills } from "../shell/skills";
import { configStep, MindSettings } from "../mind/settings/settings";
import { formatTs, stampStep, type Step } from "../trajectory/schema";
import type { Scenario } from "./scenario";
import type { FileWrite, Played, PlayedEvent } from "./score";
import { simClock, type SimClock } from "./sim-clock";
import { SelfLedger } from "../home/self-ledger";
import { fsSelfFiles, recordsSelfFiles } from "../shell/self/files";
import { scratchSandbox } from "../shell/scratch-fs";
import { SELF_DIR } from "../shell/self/paths";

const H = 3_600_000;
/** Caps for a scenario that sets none: high enough not to end a week's idle life, low enough to bound a runaway model. */
export const DEFAULT_EVAL_BUDGET = { hour_usd: 5, day_usd: 50 };

/** What a model call counts on the fixed clock of a repeatable run (`--seed`): about what a small model takes to answer. */
export const REPEATABLE_CALL_S = 2;

export interface PlayOptions {
  scenario: Scenario;
  /** The mind's model, priced (its calls' USD is what `budget` probes and spend figures read). */
  model: ModelPort;
  /** How the model is named in the mind's settings (its prompt and config steps). */
  modelSettings?: ModelSettings;
  ids?: Ids;
  /**
   * Each model call counts this many simulated seconds, whatever it really
   * took, and no other real time counts either (the fixed clock): the run is
   * repeatable. Unset: calls and blocks take their real time.
   */
  fixedCallS?: number;
  clock?: SimClock;
  /** Ends the play early (Ctrl-C): what was played is returned. */
  signal?: AbortSignal;
  /** Told as simulated time passes (at each event, and each simulated hour). */
  onProgress?: (p: { simH: number; steps: number; calls: number; usd: number }) => void;
}

export interface PlayedScenario extends Played {
  state: MemoryMindState<MindSettings>;
  /** Simulated hours reached (the scenario's duration, unless stopped). */
  reachedH: number;
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** The scenario's mind, as a new mind in the app would be, with what the scenario sets. */
export function scenarioSettings(s: Scenario, id: string, model: ModelSettings): MindSettings {
  return MindSettings.parse({
    id,
    name: s.mind,
    persona: s.persona,
    model,
    created_at: s.start,
    running: true,
    pacing: { ...DEFAULT_PACING, ...s.settings?.pacing },
    budget: s.settings?.budget ?? DEFAULT_EVAL_BUDGET,
    ...(s.settings?.max_iterations ? { max_iterations: s.settings.max_iterations } : {}),
  });
}

/** The scenario's starting files, with their directories. */
function workspaceRecords(s: Scenario, atMs: number): FileRecord[] {
  const out = new Map<string, FileRecord>();
  const dir = (path: string) => out.set(path, { path, kind: "dir", mode: 0o755, mtime: atMs });
  dir(WORKSPACE);
  for (const [rel, text] of Object.entries(s.workspace ?? {})) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) dir(`${WORKSPACE}/${parts.slice(0, i).join("/")}`);
    out.set(`${WORKSPACE}/${rel}`, { path: `${WORKSPACE}/${rel}`, kind: "file", data: utf8.encode(text), mode: 0o644, mtime: atMs });
  }
  return [...out.values()];
}

export async function playScenario(o: PlayOptions): Promise<PlayedScenario> {
  const { scenario } = o;
  const startMs = Date.parse(scenario.start);
  const endMs = startMs + scenario.duration_h * H;
  const clock = o.clock ?? simClock(startMs, { fixed: o.fixedCallS !== undefined });
  const callMs = (o.fixedCallS ?? 0) * 1000;
  const ids = o.ids ?? { uuid: () => crypto.randomUUID() };
  const mindId = ids.uuid();
  const settings = scenarioSettings(scenario, mindId, o.modelSettings ?? { provider: "openai-compatible", baseURL: "http://127.0.0.1/v1", model: o.model.name });
  const state = new MemoryMindState<MindSettings>(mindId, settings);
  // The first steps a new mind in the app gets: its trajectory's header and its settings.
  await state.append({
    steps: [
      { trajId: mindId, step: { type: "trajectory", step_id: mindId, ts: formatTs(startMs), name: settings.name, source: "system" } },
      { trajId: mindId, step: configStep(settings, startMs, ids.uuid()) },
    ],
    seen: [],
  });
  await state.files.save(workspaceRecords(scenario, startMs), []);

  // Every file a block writes, with the simulated time it was saved at (what `unprompted` file probes read).
  const files: FileWrite[] = [];
  const saveFiles = state.files.save.bind(state.files);
  const watched = {
    loadAll: () => state.files.loadAll(),
    save: async (put: FileRecord[], remove: string[]) => {
      await saveFiles(put, remove);
      const at = clock.now();
      for (const r of put) if (r.kind === "file" && r.path.startsWith(`${WORKSPACE}/`)) files.push({ path: r.path.slice(WORKSPACE.length + 1), atMs: at, text: utf8d.decode(r.data ?? new Uint8Array()) });
    },
  };
  // Its own texts (self/), set up as at any mind's first start: straight to the store, so they are not files the mind wrote.
  const self = await SelfLedger.load({
    state,
    root: mindId,
    files: recordsSelfFiles(async () => (await state.files.loadAll()).filter((r) => r.path === SELF_DIR || r.path.startsWith(`${SELF_DIR}/`)), (put, remove) => state.files.save(put, remove), () => clock.now()),
    persona: settings.persona,
    clock,
    ids,
  });
  const { permissions } = settings;
  const { fs, flush } = await openPersistentFs(watched, { maxBytes: permissions.limits.max_workspace_bytes });
  self.useFiles(fsSelfFiles(fs, flush));
  // Blocks and model calls are real work: the clock does not skip while they run.
  const busy = (sandbox: ShellPort): ShellPort => ({
    open: (scope) => {
      const session = sandbox.open(scope);
      return { exec: (code, req) => clock.busy(session.exec(code, req)) };
    },
  });
  const shell = busy(justBashSandbox({ fs, flush, permissions, ids, clock }));
  const calls: { atMs: number; ms: number }[] = [];
  let usd = 0;
  const model: ModelPort = {
    name: o.model.name,
    complete: async (req) => {
      const call = { atMs: clock.now(), ms: 0 };
      calls.push(call);
      const began = performance.now();
      try {
        const r = await clock.busy(o.model.complete(req), callMs);
        if (r.ok) usd += r.usage?.usd ?? 0;
        return r;
      } finally {
        call.ms = performance.now() - began;
      }
    },
  };
  const record = await state.record();
  if (!record) throw new Error("the scenario's mind could not be read back from its own store");
  const { loop, log, stored } = wireMind({
    state,
    record,
    caps: settings.budget ?? DEFAULT_EVAL_BUDGET,
    root: mindId,
    clock,
    ids,
    model,
    shell,
    self,
    scratchShell: async () => busy(await scratchSandbox(fs, { permissions, ids, clock })),
    skills: () => listSkills(fs),
    permissions,
    where: undefined,
    onStatus: () => undefined,
    onRecordError: () => undefined,
    // Written within the turn: a real-time gather would let the clock move on before the steps are stored.
    gather: () => Promise.resolve(),
  });

  const stop = new AbortController();
  const ended = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  const running = loop.start();
  const events: PlayedEvent[] = [];
  const progress = () => o.onProgress?.({ simH: Math.round(((clock.now() - startMs) / H) * 100) / 100, steps: state.steps().length, calls: calls.length, usd });
  // Progress once a simulated hour, on the same clock.
  void (async () => {
    while (!ended.aborted && clock.now() < endMs) {
      await clock.sleep(H, ended);
      if (!ended.aborted) progress();
    }
  })();

  for (const [index, e] of scenario.events.entries()) {
    await clock.sleep(startMs + e.at_h * H - clock.now(), ended);
    if (ended.aborted) break;
    const step: Step = stampStep({ type: "message", source: "chat", from: e.from, to: scenario.mind, content: e.message }, { id: ids.uuid(), now: clock.now() });
    await state.append({ steps: [{ trajId: mindId, step }], seen: [] });
    log.ingest(step);
    loop.notify(step);
    events.push({ index, stepId: step.step_id });
    progress();
  }
  if (!ended.aborted) await clock.sleep(endMs - clock.now(), ended);
  const reachedH = Math.min(scenario.duration_h, (clock.now() - startMs) / H);
  stop.abort();
  await loop.stop();
  await running.catch(() => undefined);
  await stored();

  return { scenario, startMs, steps: everyStep(state, mindId), events, files, modelCalls: calls.length, calls, state, reachedH };
}

/** The mind's steps across its trajectories (its runs' children too), in time order. */
function everyStep(state: MemoryMindState<MindSettings>, root: string): Step[] {
  const out: Step[] = [];
  const walk = (traj: string) => {
    out.push(...state.steps(traj));
    for (const child of state.children(traj)) walk(child);
  };
  walk(root);
  return out.map((s, i) => ({ s, i })).sort((a, b) => Date.parse(a.s.ts) - Date.parse(b.s.ts) || a.i - b.i).map(({ s }) => s);
}
