// FAKE — an in-memory StepLog for tests of lib/mind. It behaves like the Dexie
// log (lib/store/steps.ts mindLog): every append is checked with the schema
// and refused when invalid, steps are stored as JSON (so `undefined` fields
// vanish), a blob name can be written once. `failAppends` makes every append
// reject, as a full disk would.
import type { Ids, StepLog } from "../../../lib/mind/ports";
import { parseStep, type Step } from "../../../lib/trajectory/schema";

export class MemoryStepLog implements StepLog {
  readonly steps: Step[] = [];
  readonly blobs = new Map<string, string>();
  /** When set, append and putBlob reject with this error. */
  failAppends: Error | null = null;
  /** Appends that were refused because of `failAppends`. */
  refused = 0;

  constructor(initial: readonly Step[] = []) {
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

  async find(idOrPrefix: string, limit: number): Promise<Step[]> {
    return this.steps.filter((s) => s.step_id.startsWith(idOrPrefix.toLowerCase())).slice(0, limit);
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
