// Playing a scenario (issue 23): the real mind, started as every home starts
// one (lib/home/start.ts), from a scenario's home (lib/home/scenario.ts: the
// in-memory store and workspace, on the simulated clock). People's messages
// come in through its state's inbound side at their hours, as a tab's do;
// every wait is skipped while model calls and blocks take their real time.
// What it returns is what the scorer reads (score.ts).
import { scenarioHome } from "../home/scenario";
import { startMind } from "../home/start";
import { silent } from "../mind/events";
import type { ModelSettings, Price } from "../mind/settings/model";
import { MemoryMindState } from "../mind/state/memory-state";
import { DEFAULT_PACING } from "../mind/pacing/pacing";
import type { Ids, ModelPort } from "../mind/ports";
import type { FileRecord } from "../mind/state/state";
import { WORKSPACE } from "../shell/limits";
import { configStep, MindSettings } from "../mind/settings/settings";
import { formatTs, stampStep, type Step } from "../trajectory/schema";
import type { Scenario } from "./scenario";
import type { Call, Played, PlayedEvent } from "./score";
import { simClock, type SimClock } from "./sim-clock";
import { systemIds } from "../system/system";

const H = 3_600_000;
/** Caps for a scenario that sets none: high enough not to end a week's idle life, low enough to bound a runaway model. */
export const DEFAULT_EVAL_BUDGET = { hour_usd: 5, day_usd: 50 };

/** What a model call counts on the fixed clock of a repeatable run (`--seed`): about what a small model takes to answer. */
export const REPEATABLE_CALL_S = 2;

export interface PlayOptions {
  scenario: Scenario;
  /** The mind's model, priced (its calls' USD is what their steps record). */
  model: ModelPort;
  /**
   * What every call is priced at for the scorer (`budget`, `usd_per_hour`):
   * on the larger of the tokens the model reports and those the home counts
   * itself (lib/eval/meter.ts).
   */
  price: Price;
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
  /** Every call the model got, metered by the scenario's home. */
  calls: Call[];
  /** Simulated hours reached (the scenario's duration, unless stopped). */
  reachedH: number;
}

const utf8 = new TextEncoder();

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
  const ids = o.ids ?? systemIds;
  const mindId = ids.uuid();
  const settings = scenarioSettings(scenario, mindId, o.modelSettings ?? { provider: "openai-compatible", baseURL: "http://127.0.0.1/v1", model: o.model.name });
  const state = new MemoryMindState<MindSettings>(mindId, settings);
  // The first steps a new mind in the app gets, as the app writes them for it: its trajectory's header and its settings.
  await state.deliver({ type: "trajectory", step_id: mindId, ts: formatTs(startMs), name: settings.name, source: "system" });
  await state.deliver(configStep(settings, startMs, ids.uuid()));
  await state.files.save(workspaceRecords(scenario, startMs), []);

  const { home, files, calls, usd } = scenarioHome({ state, model: o.model, price: o.price, clock, ids, callMs });
  const mind = await startMind(home, silent);

  const stop = new AbortController();
  const ended = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;

  const events: PlayedEvent[] = [];
  const progress = () => o.onProgress?.({ simH: Math.round(((clock.now() - startMs) / H) * 100) / 100, steps: state.steps().length, calls: calls.length, usd: usd() });
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
    await state.deliver(step);
    events.push({ index, stepId: step.step_id });
    progress();
  }
  if (!ended.aborted) await clock.sleep(endMs - clock.now(), ended);
  const reachedH = Math.min(scenario.duration_h, (clock.now() - startMs) / H);
  stop.abort();
  await mind.stop();

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
