import "server-only";
// What a synced mind spent, for an operator's invite: the figures its owner's
// Usage tab and spend line show (components/usage, lib/store/derived/usage.ts),
// summed by the same pure code (lib/mind/budget/usage-series.ts) over the same rows.
// The rows come from sync_steps, not mind_usage: mind_usage holds only the
// calls the server's own home made, and no tokens, while sync_steps holds
// every step either home wrote, each model call's usage inside its JSON.
import { periods } from "@/lib/mind/budget/budget";
import { seriesStart, usageSeries, type UsageCall } from "@/lib/mind/budget/usage-series";
import type { MindUsage } from "@/lib/sharing/wire";
import { BudgetConfig, StepUsage } from "@/lib/trajectory/schema";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";

/** The kinds that carry a model call's usage (stepUsage in lib/trajectory/schema.ts reads these). */
const USAGE_KINDS = ["reasoning", "thought", "observation", "error"];
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** One model call as the usage table keeps it, and the step that records it (to order ties as the table does). */
export type UsageRow = UsageCall & { step_id: string };

/** A stored step's usage as a usage row (lib/store/derived/usage.ts usageRow's figures), or null when it has none or none that parses. */
export function usageRowOf(stepId: string, ts: string, usage: unknown): UsageRow | null {
  const u = StepUsage.safeParse(usage);
  const at = Date.parse(ts);
  if (!u.success || Number.isNaN(at)) return null;
  const row: UsageRow = { step_id: stepId, ts: at, usd: u.data.usd ?? 0, input_tokens: u.data.input_tokens, output_tokens: u.data.output_tokens };
  if (u.data.cached_input_tokens !== undefined) row.cached_input_tokens = u.data.cached_input_tokens;
  return row;
}

/**
 * The report, from the rows of the last 30 days. Rows are summed in the
 * usage table's order (time, then step), as the owner's page sums them; the
 * hour, the day and the burn count what comes after `now` too, as the caps do.
 */
export function usageReport(rows: readonly UsageRow[], caps: BudgetConfig | null, now: number): MindUsage {
  const sorted = [...rows].sort((a, b) => a.ts - b.ts || (a.step_id < b.step_id ? -1 : a.step_id > b.step_id ? 1 : 0));
  const p = periods(now);
  const burnStart = now - HOUR_MS;
  let hour = 0;
  let day = 0;
  let burn = 0;
  for (const r of sorted) {
    if (r.ts >= p.hourStart) hour += r.usd;
    if (r.ts >= p.dayStart) day += r.usd;
    if (r.ts >= burnStart) burn += r.usd;
  }
  return { now, caps, hour_usd: hour, day_usd: day, burn_usd_per_hour: burn, hour: usageSeries(sorted, "hour", now), day: usageSeries(sorted, "day", now) };
}

/** The mind's caps from its synced settings (sync_minds.settings); null when there are none, or none that parse. */
function capsOf(settings: string | null): BudgetConfig | null {
  if (!settings) return null;
  try {
    const r = BudgetConfig.safeParse((JSON.parse(settings) as { budget?: unknown } | null)?.budget);
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export async function mindUsage(sql: Sql, mind: string, now: number): Promise<MindUsage> {
  const [row] = await sql.query<{ settings: string | null }>("SELECT settings FROM sync_minds WHERE id = $1", [mind]);
  if (!row) throw new HttpError(404, "not_found", "no such mind");
  // The 30 days' first day holds the 48 hours and the last 60 minutes too.
  const since = seriesStart("day", now);
  // The LIKE skips steps without usage before their JSON is parsed. A time written as ISO 8601 (what Reverie writes)
  // is compared as text, a day early so an offset cannot hide a call; any other form Date.parse reads is decided below.
  const found = await sql.query<{ step_id: string; ts: string | null; usage: unknown }>(
    `SELECT s.step_id, j.v->>'ts' AS ts, j.v->'usage' AS usage
       FROM sync_steps s CROSS JOIN LATERAL (SELECT s.json::jsonb AS v) j
      WHERE s.mind = $1 AND s.type = ANY($2::text[]) AND s.json LIKE '%"usage"%'
        AND (NOT (j.v->>'ts') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' OR (j.v->>'ts') >= $3)`,
    [mind, USAGE_KINDS, new Date(since - DAY_MS).toISOString()],
  );
  const rows = found.flatMap((f) => {
    const r = f.ts === null ? null : usageRowOf(f.step_id, f.ts, typeof f.usage === "string" ? JSON.parse(f.usage) : f.usage);
    return r && r.ts >= since ? [r] : [];
  });
  return usageReport(rows, capsOf(row.settings), now);
}
