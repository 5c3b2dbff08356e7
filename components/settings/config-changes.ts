// "What changed": one config step against the one before it, field by field,
// as lines a person reads ("pacing.base_s: 5 → 2"). Pure.
import type { ConfigStep } from "@/lib/store/steps/config-steps";

/** Fields every step has: not settings. */
const BOOKKEEPING = new Set(["type", "step_id", "ts", "run_id", "trigger_step", "source"]);

type Flat = Map<string, string>;

function flatten(value: unknown, prefix: string, out: Flat): Flat {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (!(prefix === "" && BOOKKEEPING.has(k))) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined) {
    out.set(prefix, Array.isArray(value) ? (value.length ? value.map(String).join(", ") : "none") : String(value));
  }
  return out;
}

/** Lines saying what `next` changed from `prev`; for the first config, what the mind began with. */
export function configChanges(prev: ConfigStep | undefined, next: ConfigStep): string[] {
  if (!prev) return [`began with ${next.provider}/${next.model}, ${next.max_iterations} steps per run`];
  const before = flatten(prev, "", new Map());
  const after = flatten(next, "", new Map());
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  return keys.flatMap((k) => {
    const a = before.get(k);
    const b = after.get(k);
    if (a === b) return [];
    return [`${k}: ${a ?? "(none)"} → ${b ?? "(none)"}`];
  });
}
