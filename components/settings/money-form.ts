// Caps and prices as a person types them, and back: pure, so the new-mind
// form and the settings panel read the same fields the same way.
import { modelLabel } from "@/lib/llm/settings";
import type { Price, PriceTable } from "@/lib/mind/settings/model";
import type { ModelSettings } from "@/lib/mind/settings/model";
import { budgetProblems } from "@/lib/mind/budget/budget";
import type { BudgetConfig } from "@/lib/trajectory/schema";

export const CAP_HOUR_FIELD = "cap_hour";
export const CAP_DAY_FIELD = "cap_day";
export const PRICE_INPUT_FIELD = "price_input";
export const PRICE_OUTPUT_FIELD = "price_output";

const typed = (f: FormData, k: string) => String(f.get(k) ?? "").trim();
const amount = (s: string) => (s === "" ? undefined : Number(s));

/** The caps as typed: a budget, or a message per problem (a missing or non-positive cap is one). */
export function readBudgetFields(f: FormData): { ok: true; budget: BudgetConfig } | { ok: false; problems: string[] } {
  const budget = { hour_usd: amount(typed(f, CAP_HOUR_FIELD)), day_usd: amount(typed(f, CAP_DAY_FIELD)) };
  const problems = budgetProblems(budget);
  if (!problems.length && budget.day_usd! < budget.hour_usd!) problems.push("The daily cap cannot be lower than the hourly one.");
  return problems.length ? { ok: false, problems } : { ok: true, budget: budget as BudgetConfig };
}

/** The price as typed (both fields, USD per million tokens), none when both are empty. */
export function readPriceFields(f: FormData): { ok: true; price?: Price } | { ok: false; problem: string } {
  const input = typed(f, PRICE_INPUT_FIELD);
  const output = typed(f, PRICE_OUTPUT_FIELD);
  if (input === "" && output === "") return { ok: true };
  const price = { input: Number(input === "" ? output : input), output: Number(output === "" ? input : output) };
  if (![price.input, price.output].every((n) => Number.isFinite(n) && n >= 0)) return { ok: false, problem: "A price is a number of USD per million tokens, 0 or more." };
  return { ok: true, price };
}

/** A model its mind's caps cannot count is refused: it needs a price, given or known. */
export function priceProblems(s: ModelSettings, table: PriceTable): string[] {
  if (s.provider === "proxy" || s.price || table[modelLabel(s)]) return [];
  return [`No price is known for ${modelLabel(s)}: give its price in USD per million input and output tokens (0 for a free local server).`];
}

/** A proxy mind keeps the proxy's price for its model, for when the proxy cannot be asked at start-up. */
export function withProxyPrice(s: ModelSettings, offer: { available: boolean; models?: { id: string; price?: Price }[] } | undefined): ModelSettings {
  if (s.provider !== "proxy" || !offer?.available) return s;
  const price = offer.models?.find((m) => m.id === s.model)?.price;
  return price ? { ...s, price } : s;
}
