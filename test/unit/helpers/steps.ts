// Steps for tests, with deterministic ids and times. Checked against the
// schema so a test cannot build a step the store would refuse.
import { parseStep, type Step } from "../../../lib/trajectory/schema";

/** `id(7)` → 00000007-0000-4000-8000-aaaaaaaaaaaa: the first 8 characters differ from step to step. */
export function id(n: number, tail = "aaaaaaaaaaaa"): string {
  return `${n.toString(16).padStart(8, "0")}-0000-4000-8000-${tail}`;
}

export function stepMaker(opts: { tail?: string; start?: number; everyMs?: number } = {}) {
  let n = 0;
  const start = opts.start ?? Date.parse("2025-01-01T00:00:00.000Z");
  return (type: string, fields: Record<string, unknown> = {}): Step => {
    n++;
    const raw = { step_id: id(n, opts.tail), ts: new Date(start + n * (opts.everyMs ?? 1000)).toISOString(), type, ...fields };
    const parsed = parseStep(raw);
    if (!parsed.ok) throw new Error(`bad test step: ${parsed.error}`);
    return parsed.step;
  };
}
