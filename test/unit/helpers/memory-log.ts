// FAKE — an in-memory StepLog for tests of lib/mind. It behaves like the Dexie
// log (lib/store/steps/steps.ts trajectoryLog): every append is checked with the
// schema and refused when invalid, steps are stored as JSON (so `undefined`
// fields vanish), a blob name can be written once, reads are of this
// trajectory only, and `find` spans every trajectory forked from the root.
// `failAppends` makes every append reject, as a full disk would.
import type { FoundStep, Ids, StepLog } from "../../../lib/mind/ports";
import { parseStep, type Step } from "../../../lib/trajectory/schema";
import { stepText } from "../../../lib/trajectory/summary";

export const ROOT_TRAJ = "00000000-0000-4000-8000-00000000beef";

export class MemoryStepLog implements StepLog {
  readonly steps: Step[] = [];
  readonly blobs = new Map<string, string>();
  /** When set, append and putBlob reject with this error. */
  failAppends: Error | null = null;
  /** Appends that were refused because of `failAppends`. */
  refused = 0;
  /** Every trajectory of the mind, the root first; shared with forked children. */
  readonly all: Map<string, MemoryStepLog>;

  constructor(
    initial: readonly Step[] = [],
    readonly trajId = ROOT_TRAJ,
    all?: Map<string, MemoryStepLog>,
  ) {
    this.all = all ?? new Map();
    this.all.set(trajId, this);
    for (const s of initial) this.steps.push(this.checked(s));
  }

  private checked(step: Step): Step {
    const parsed = parseStep(JSON.parse(JSON.stringify(step)));
    if (!parsed.ok) throw new Error(`Refusing to append an invalid step: ${parsed.error}`);
    return parsed.step;
  }

  async append(step: Step): Promise<void> {
    if (this.failAppends) {
      this.refused++;
      throw this.failAppends;
    }
    this.steps.push(this.checked(step));
  }

  async putBlob(name: string, text: string): Promise<void> {
    if (this.failAppends) throw this.failAppends;
    if (this.blobs.has(name)) throw new Error(`blob ${name} written twice`);
    this.blobs.set(name, text);
  }

  async tail(n: number): Promise<Step[]> {
    return n <= 0 ? [] : this.steps.slice(-n);
  }

  async count(): Promise<number> {
    return this.steps.length;
  }

  async find(idOrPrefix: string, limit: number): Promise<FoundStep[]> {
    const out: FoundStep[] = [];
    for (const log of this.all.values()) for (const step of log.steps) if (step.step_id.startsWith(idOrPrefix.toLowerCase())) out.push({ step, trajId: log.trajId });
    return out.slice(0, limit);
  }

  async search(text: string, limit: number): Promise<Step[]> {
    const q = text.toLowerCase();
    return [...this.steps].reverse().filter((s) => stepText(s).toLowerCase().includes(q)).slice(0, limit);
  }

  async ofKind(kinds: readonly string[]): Promise<Step[]> {
    return this.steps.filter((s) => kinds.includes(s.type));
  }

  async blob(ref: string, trajId = this.trajId): Promise<string | undefined> {
    return this.all.get(trajId)?.blobs.get(ref.replace(/^blobs\//, ""));
  }

  async fork(child: { trajId: string; name: string }): Promise<StepLog> {
    if (this.all.has(child.trajId)) throw new Error(`trajectory ${child.trajId} forked twice`);
    return new MemoryStepLog([], child.trajId, this.all);
  }

  /** A trajectory of this mind by id. */
  traj(trajId: string): MemoryStepLog {
    const log = this.all.get(trajId);
    if (!log) throw new Error(`no trajectory ${trajId}`);
    return log;
  }

  ofType(type: string): Step[] {
    return this.steps.filter((s) => s.type === type);
  }
}

/** Deterministic UUIDs: 00000001-0000-4000-8000-000000000000, 00000002-…; `tail` tells sources apart. */
export function sequentialIds(tail = "000000000000"): Ids & { next: number } {
  const ids = {
    next: 1,
    uuid() {
      const n = ids.next++;
      return `${n.toString(16).padStart(8, "0")}-0000-4000-8000-${tail}`;
    },
  };
  return ids;
}
