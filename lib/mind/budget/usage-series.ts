// What a mind's model calls cost, per UTC hour or day, for its usage charts.
// Buckets are the periods its caps count (budget.ts), so the newest hour and
// day are exactly what the page's spend line says. Pure: rows in, series out.
import { periods } from "./budget";

/** One model call as the usage table keeps it (lib/store/derived/usage.ts); rows written before tokens were kept have none. */
export interface UsageCall {
  ts: number;
  usd: number;
  input_tokens?: number;
  output_tokens?: number;
  cached_input_tokens?: number;
}

export type Bucket = "hour" | "day";

export interface UsageBucket {
  /** The bucket's UTC start, epoch ms. */
  start: number;
  calls: number;
  inputTokens: number;
  /** Of the input, read from the provider's cache. */
  cachedInputTokens: number;
  outputTokens: number;
  usd: number;
}

export interface UsageSeries {
  bucket: Bucket;
  /** Oldest first; the last holds `now`. */
  buckets: UsageBucket[];
}

export const BUCKET_MS: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The charts' spans: the last 48 hours, the last 30 days. */
export const DEFAULT_COUNT: Record<Bucket, number> = { hour: 48, day: 30 };

/** Where the series of `count` buckets ending with the one that holds `now` begins. */
export function seriesStart(bucket: Bucket, now: number, count = DEFAULT_COUNT[bucket]): number {
  const p = periods(now);
  return (bucket === "hour" ? p.hourStart : p.dayStart) - (count - 1) * BUCKET_MS[bucket];
}

/**
 * Per-bucket tokens and dollars. Rows are summed in the order given (the
 * table's [mind_id+ts] order), as spendSummary sums them, so equal figures
 * are equal to the last bit. Calls before the first bucket or after `now` are left out.
 */
export function usageSeries(rows: readonly UsageCall[], bucket: Bucket, now: number, count = DEFAULT_COUNT[bucket]): UsageSeries {
  const size = BUCKET_MS[bucket];
  const first = seriesStart(bucket, now, count);
  const buckets: UsageBucket[] = Array.from({ length: count }, (_, i) => ({ start: first + i * size, calls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, usd: 0 }));
  for (const r of rows) {
    if (r.ts < first || r.ts > now) continue;
    const b = buckets[Math.floor((r.ts - first) / size)];
    if (!b) continue;
    b.calls++;
    b.inputTokens += r.input_tokens ?? 0;
    b.cachedInputTokens += r.cached_input_tokens ?? 0;
    b.outputTokens += r.output_tokens ?? 0;
    b.usd += r.usd;
  }
  return { bucket, buckets };
}
