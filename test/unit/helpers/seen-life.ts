// A mind's life for the context-record tests: a stream that grows as a
// running mind's does (each model call leads to a reasoning step, then its
// output), the blocks that complete sealed as they do (tiers rows, and the
// summaries buildContext is given), and each call's record made by the code
// the mind uses (buildContext, then seenCall).
import { arraySource, buildContext, type BuildOptions, type BuiltContext, type ContextSource, type Summary } from "@/lib/context/build";
import { seenCall, type SeenCall, type SystemPart } from "@/lib/context/replay";
import { blockRange, completeBlocks, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import type { TierRow } from "@/lib/store/db/db";
import type { Step } from "@/lib/trajectory/schema";
import { stepMaker } from "./steps";

const F = { fanout: 10 };
const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** The instructions of an inner-life call, in the parts lib/mind/run/prompt.ts makes (their texts long, as the real ones are). */
export const SYSTEM: SystemPart[] = [
  { kind: "persona", text: "You are Reverie, a mind that tends a garden of notes. ".repeat(8) },
  { kind: "how-to-act", text: "Think, then act with one bash block; set FINAL when done. ".repeat(30) },
  { kind: "commands", text: "- traj tail\n- mem add\n- chat send\n".repeat(20) },
  { kind: "people", text: "ana: the gardener.\n" },
];

export interface CallOptions {
  run_id: string;
  iteration: number;
  system?: readonly SystemPart[];
  budget?: number;
  pinned?: Step;
  ancestors?: readonly Step[];
  /** How the context is cut (an idle wake's first look cuts it lean: lib/context/lean.ts). */
  build?: (src: ContextSource, opts: BuildOptions) => BuiltContext;
}

export class SeenLife {
  readonly steps: Step[] = [];
  private readonly sealed = new Map<string, Summary>();
  private readonly counter = new TokenCounter();
  private readonly mk: ReturnType<typeof stepMaker>;

  constructor(
    readonly mindId: string,
    readonly trajId: string,
    tail = "aaaaaaaaaaaa",
  ) {
    this.mk = stepMaker({ tail });
  }

  /** A step of the life, not in the stream yet (a run's prompt, say). */
  make(type: string, fields: Record<string, unknown>): Step {
    return this.mk(type, fields);
  }

  private reasoning(): Step {
    const n = this.steps.length;
    return this.mk("reasoning", { thought: `Step ${n}: I look at what changed and pick the next thing to do.`, cmd: `ls notes | head -${n % 17}` });
  }

  private output(): Step {
    const n = this.steps.length;
    return this.mk("shell-output", { stdout: n % 9 === 0 ? "note.md\n".repeat(40) : `note-${n}.md\n`, stderr: "", exit: 0, exec_s: 0.01, timed_out: false });
  }

  /** `n` more steps of the stream (reasoning and output in turn). */
  grow(n: number): Step[] {
    const out = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? this.reasoning() : this.output()));
    this.steps.push(...out);
    return out;
  }

  /** Every complete block not sealed yet, sealed: the rows the tiers table gets (each citing three steps of its block). */
  seal(): TierRow[] {
    const rows: TierRow[] = [];
    for (const b of completeBlocks(this.steps.length, F)) {
      if (this.sealed.has(key(b))) continue;
      const { from, to } = blockRange(b, F);
      const at = (p: number) => (this.steps[p] as Step).step_id;
      const cites = [at(from), at(from + Math.floor((to - from) / 2)), at(to - 1)];
      const content = `I worked through block ${key(b)}: tidied notes, answered ana, and kept going.`;
      this.sealed.set(key(b), { content, cites });
      rows.push({ mind_id: this.mindId, traj_id: this.trajId, tier: b.tier, index: b.index, content, cites, first_step: at(from), last_step: at(to - 1), steps: to - from });
    }
    return rows;
  }

  /** What a call made now saw, recorded under the reasoning step it leads to; then that step and its output join the stream. */
  call(o: CallOptions): { call: SeenCall; steps: Step[] } {
    const src = arraySource(this.steps);
    const opts: BuildOptions = {
      selfName: "Reverie",
      budget: o.budget ?? 16_000,
      tiers: F,
      summary: (b) => this.sealed.get(key(b)),
      counter: this.counter,
      ...(o.pinned ? { pinned: o.pinned } : {}),
      ...(o.ancestors ? { ancestors: o.ancestors } : {}),
    };
    const built = (o.build ?? buildContext)(src, opts);
    const steps = this.grow(2);
    const led = steps[0] as Step;
    const call = seenCall(built, opts, src, { step_id: led.step_id, run_id: o.run_id, traj_id: this.trajId, iteration: o.iteration, system: o.system ?? SYSTEM });
    return { call, steps };
  }
}
