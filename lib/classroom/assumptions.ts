// The simulation's starting assumptions, taken from the mind's own numbers
// where it has them: an idle wake is the forecast's typical idle wake (one
// call that sees the 2k idle look plus instructions), the pacing is the
// default every new mind gets, and prices come from the built-in table.
import { TYPICAL_IDLE_WAKE } from "../onboarding/forecast";
import { DEFAULT_PACING } from "../mind/pacing/pacing";
import { BUILT_IN_PRICES } from "../llm/prices";
import type { Price } from "../mind/settings/model";
import type { Assumptions } from "./harness";

export const DEFAULT_MODEL = "openai/gpt-4.1-mini";

const FALLBACK_PRICE: Price = { input: 0.4, output: 1.6 };

/** Models a teacher can price the day at (the built-in table). */
export const PRICED_MODELS: readonly string[] = Object.keys(BUILT_IN_PRICES);

export function priceOf(model: string): Price {
  return BUILT_IN_PRICES[model] ?? BUILT_IN_PRICES[DEFAULT_MODEL] ?? FALLBACK_PRICE;
}

export function defaultAssumptions(model = DEFAULT_MODEL): Assumptions {
  return {
    // Answering: two calls (look, then reply) that see a full 16k-budget context at about half full.
    messageWake: { calls: 2, inputTokens: 8000, outputTokens: 300, runS: 20 },
    idleWake: { calls: 1, inputTokens: TYPICAL_IDLE_WAKE.inputTokens, outputTokens: TYPICAL_IDLE_WAKE.outputTokens, runS: 5 },
    scheduleEveryS: 15 * 60,
    pacing: DEFAULT_PACING,
    price: priceOf(model),
  };
}
