// A scenario's home (lib/eval/play.ts plays one): the real mind over the
// in-memory store, its workspace in memory, on a simulated clock. What only
// it has: model calls and blocks counted as work the clock does not skip (a
// call counts a fixed time on a repeatable run), every file a block saves
// kept with the simulated time it was saved at, each call's time and cost
// (metered here, lib/eval/meter.ts: the mind's calls and the summarizer's
// alike, whatever the server reports), and steps written within the turn (a real-time gather would let the clock move on
// before they are stored). People's messages come in through its state's
// inbound side, at their hours, as the script says.
import { callMeter } from "../eval/meter";
import type { Call, FileWrite } from "../eval/score";
import type { SimClock } from "../eval/sim-clock";
import type { Ids, ModelPort, ModelResult } from "../mind/ports";
import type { Price } from "../mind/settings/model";
import type { MindSettings } from "../mind/settings/settings";
import type { MemoryMindState } from "../mind/state/memory-state";
import type { FileRecord, WorkspaceStore } from "../mind/state/state";
import { WORKSPACE } from "../shell/limits";
import type { Home } from "./home";

export interface ScenarioHome {
  home: Home;
  state: MemoryMindState<MindSettings>;
  /** Every file a block saved under the workspace, in order. */
  files: FileWrite[];
  /** Each model call: when it was made (simulated), how long it really took, and what it cost. */
  calls: Call[];
  /** What the calls have cost so far. */
  usd(): number;
}

const utf8d = new TextDecoder();

/** `callMs`: what a call counts on the simulated clock (0: its real time); `price`: what every call the home's model gets is priced at. */
export function scenarioHome(o: { state: MemoryMindState<MindSettings>; model: ModelPort; price: Price; clock: SimClock; ids: Ids; callMs: number }): ScenarioHome {
  const { state, clock } = o;
  const files: FileWrite[] = [];
  const workspace: WorkspaceStore = {
    loadAll: () => state.files.loadAll(),
    loadUnder: (dir) => state.files.loadUnder(dir),
    save: async (put: FileRecord[], remove: string[]) => {
      await state.files.save(put, remove);
      const at = clock.now();
      for (const r of put) if (r.kind === "file" && r.path.startsWith(`${WORKSPACE}/`)) files.push({ path: r.path.slice(WORKSPACE.length + 1), atMs: at, text: utf8d.decode(r.data ?? new Uint8Array()) });
    },
  };
  const calls: Call[] = [];
  const meter = callMeter(o.price);
  let usd = 0;
  // Model calls are real work: the clock does not skip while one is out (or counts `callMs` for it).
  // One model for every purpose (start.ts asks for the summaries' one too), so every call is metered here.
  const model: ModelPort = {
    name: o.model.name,
    complete: async (req) => {
      const call: Call = { atMs: clock.now(), ms: 0, usd: 0 };
      calls.push(call);
      const began = performance.now();
      let result: ModelResult | undefined;
      try {
        result = await clock.busy(o.model.complete(req), o.callMs);
        return result;
      } finally {
        call.ms = performance.now() - began;
        // A failed or stopped call is priced on what it sent: a server may bill it all the same.
        call.usd = meter(req, result).usd;
        usd += call.usd;
      }
    },
  };
  const home: Home = {
    state,
    clock,
    ids: o.ids,
    model: async () => model,
    network: (settings) => ({ permissions: settings.permissions }),
    workspace,
    options: { gather: () => Promise.resolve(), busy: (work) => clock.busy(work) },
  };
  return { home, state, files, calls, usd: () => usd };
}
