import "server-only";
// What a call is settled on, and what the proxy learns from it. The ledger
// never settles above the hold (lib/server/ledger/ledger.ts); this decides
// the amount it is told, and notices when the upstream's own report went
// past the hold (an overrun), so that model's later calls hold more.
//
// - The upstream reported usage: that, priced. Above the hold it is an
//   overrun: settled at the hold, logged, counted in the ledger, and the
//   model's margin grows to the ratio seen.
// - It never worked (unreachable, an error status, the client left before
//   the call): nothing.
// - No usage reported (a cut or aborted stream, a timeout, a server that
//   ignores include_usage): if the model may have reasoned unseen (the host
//   says so, the request asked for reasoning, or reasoning streamed), the
//   hold, since tokens the upstream bills were never relayed; otherwise the
//   relayed output counted here, with the input, both with the margins.
import { costUsd, type TokenUsage } from "../../llm/price";
import { type Price } from "../../mind/settings/model";
import { microsUp } from "../ledger/units";
import { INPUT_MARGIN } from "./tokens";

/** malformed: a 200 whose body is not a completion (relayed as a 502; the upstream may have billed for it). */
export type Outcome = "completed" | "malformed" | "upstream_unreachable" | "upstream_error" | "cut" | "client_aborted" | "timeout";

/** How a forwarded call ended, as forward() saw it. */
export interface CallEnd {
  outcome: Outcome;
  /** The usage the upstream reported, if it did. */
  reported?: TokenUsage;
  /** Output tokens counted in what was relayed (content, reasoning, tool calls). */
  relayedTokens: number;
  /** Whether the upstream did any work: false when it was not reached, refused, or the client left first. */
  worked: boolean;
  /** Whether reasoning was seen in the answer (reasoning deltas, or reasoning tokens in a usage). */
  reasoningSeen: boolean;
}

export type Basis = "reported" | "hold" | "relayed" | "nothing";

export interface SettleAmount {
  /** What the ledger is told (it settles at most the hold). */
  reportedUsd: number;
  usage: TokenUsage;
  basis: Basis;
  /** The upstream's report priced above the hold: settled at the hold, and an overrun. */
  overrun: boolean;
}

export interface CallTerms {
  price: Price;
  /** The reservation, USD. */
  heldUsd: number;
  /** The input tokens as counted here, no margin. */
  inputTokens: number;
  /** The model's current margin (1 until it overran). */
  margin: number;
  /** The host lists the model, or the request asked for reasoning. */
  mayReason: boolean;
}

const NOTHING: TokenUsage = { inputTokens: 0, outputTokens: 0 };

export function settleAmount(end: CallEnd, terms: CallTerms): SettleAmount {
  if (end.reported) {
    const reportedUsd = costUsd(terms.price, end.reported);
    return { reportedUsd, usage: end.reported, basis: "reported", overrun: microsUp(reportedUsd) > microsUp(terms.heldUsd) };
  }
  if (!end.worked) return { reportedUsd: 0, usage: NOTHING, basis: "nothing", overrun: false };
  const relayed: TokenUsage = {
    inputTokens: Math.ceil(terms.inputTokens * INPUT_MARGIN * terms.margin),
    outputTokens: Math.ceil(end.relayedTokens * INPUT_MARGIN * terms.margin),
  };
  if (terms.mayReason || end.reasoningSeen) return { reportedUsd: terms.heldUsd, usage: relayed, basis: "hold", overrun: false };
  return { reportedUsd: Math.min(costUsd(terms.price, relayed), terms.heldUsd), usage: relayed, basis: "relayed", overrun: false };
}


/** A model's margin may grow this far: past it the upstream is not miscounting but lying, and the hold alone bounds it. */
export const MAX_MARGIN = 20;

/**
 * Per-model margins on the worst case, for the life of the process. Not kept
 * in SQL: after a restart a model is trusted again until it overruns again,
 * and the ledger's clamp keeps the caps whole meanwhile.
 */
export class Margins {
  private readonly byModel = new Map<string, number>();

  of(model: string): number {
    return this.byModel.get(model) ?? 1;
  }

  /** After an overrun of `reportedUsd` against `heldUsd`: later holds for the model cover that ratio (rounded up a little). */
  grow(model: string, reportedUsd: number, heldUsd: number): number {
    const now = this.of(model);
    const ratio = heldUsd > 0 ? reportedUsd / heldUsd : MAX_MARGIN;
    const next = Math.min(MAX_MARGIN, Math.max(now, Math.ceil(now * ratio * 100) / 100));
    this.byModel.set(model, next);
    return next;
  }
}

/** Request fields by which a client asks for reasoning (OpenAI, OpenRouter, Anthropic-style thinking). */
export function asksForReasoning(body: Record<string, unknown>): boolean {
  return ["reasoning_effort", "reasoning", "thinking"].some((k) => body[k] !== undefined && body[k] !== null && body[k] !== false);
}
