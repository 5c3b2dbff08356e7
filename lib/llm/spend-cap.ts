// The host proxy's refusal at a spend cap (HTTP 429 with a `spend_cap` JSON
// error) is a pause until the cap resets, not a failure to retry with backoff.
import { APICallError, RetryError } from "ai";
import * as z from "zod";
import type { BudgetPause } from "../protocol";

const SpendCapBody = z.object({
  error: z.object({
    type: z.literal("spend_cap"),
    message: z.string().optional(),
    cap: z.string(),
    limit_usd: z.number(),
    resets_at: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "an ISO 8601 time"),
  }),
});

/** The pause a proxy's spend-cap refusal asks for, or undefined for any other error. */
export function spendCapPause(e: unknown): BudgetPause | undefined {
  const err = RetryError.isInstance(e) ? e.lastError : e;
  if (!APICallError.isInstance(err) || err.statusCode !== 429 || !err.responseBody) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(err.responseBody);
  } catch {
    return undefined;
  }
  const parsed = SpendCapBody.safeParse(body);
  if (!parsed.success) return undefined;
  const { cap, limit_usd, resets_at } = parsed.data.error;
  return { scope: "proxy", cap, limitUsd: limit_usd, resetsAt: Date.parse(resets_at) };
}
