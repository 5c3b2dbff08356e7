// What a model call cost, as the scorer counts it (issue 38): the usage a
// server reports is its word, and a server that reports none (or too little)
// would make a run look free. So the scenario's home counts each call's tokens
// itself, the request's instructions and messages as sent and the reply's text
// as received (o200k_base: within about 10-15% for other vocabularies), and
// prices the call at the run's price on the larger of the two counts, input
// and output each. Every call the home's model gets is metered, the
// summarizer's too.
import { MESSAGE_OVERHEAD, TokenCounter } from "../context/tokens";
import { costUsd } from "../llm/price";
import type { ModelRequest, ModelResult } from "../mind/ports";
import type { Price } from "../mind/settings/model";

/** A call as priced: the tokens it is counted at (the larger of reported and counted) and what they cost. */
export interface CallCost {
  input_tokens: number;
  output_tokens: number;
  usd: number;
}

/**
 * A context's messages are mostly the last call's: their counts are kept by
 * text (a few thousand, a context or two of them), so a call counts what is
 * new in it.
 */
const REMEMBERED_TEXTS = 4096;

/** Prices calls at `price`; one meter per run (it remembers the texts it counted). */
export function callMeter(price: Price): (req: ModelRequest, result: ModelResult | undefined) => CallCost {
  const counter = new TokenCounter(REMEMBERED_TEXTS);
  const counted = (text: string) => counter.cached(text, text) + MESSAGE_OVERHEAD;
  return (req, result) => {
    const sent = counted(req.instructions) + req.messages.reduce((n, m) => n + counted(m.content), 0);
    const received = result?.ok ? counter.count(result.text) : 0;
    const reported = result?.usage;
    const reportedIn = reported?.input_tokens ?? (result?.ok ? (result.inTokens ?? 0) : 0);
    const reportedOut = reported?.output_tokens ?? (result?.ok ? (result.outTokens ?? 0) : 0);
    const input = Math.max(reportedIn, sent);
    const output = Math.max(reportedOut, received);
    // A cache discount is the server's word too: taken only when its own input count is the one priced.
    const cached = reportedIn >= sent ? (reported?.cached_input_tokens ?? 0) : 0;
    return { input_tokens: input, output_tokens: output, usd: costUsd(price, { inputTokens: input, cachedInputTokens: cached, outputTokens: output }) };
  };
}
