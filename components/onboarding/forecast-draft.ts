// What a mind not yet made would cost idling at its pacing cap, from the
// model, price, pacing and caps typed so far: the Usage tab's forecast
// (lib/onboarding/forecast) with no history yet, so at a typical idle wake. Pure.
import { priceFor } from "@/lib/llm/prices";
import type { Price, PriceTable } from "@/lib/mind/settings/model";
import { costUsd } from "@/lib/llm/price";
import type { ProxyOffer } from "@/lib/llm/proxy";
import type { ModelSettings } from "@/lib/mind/settings/model";
import { forecast, TYPICAL_IDLE_WAKE, type Forecast } from "@/lib/onboarding/forecast";
import type { BudgetConfig, PacingConfig } from "@/lib/trajectory/schema";
import { withProxyPrice } from "../settings/money-form";

/** The price the mind's calls would be counted at: typed, the proxy's, or this browser's table; none when unknown. */
export function draftPrice(settings: ModelSettings, proxy: ProxyOffer | undefined, table: PriceTable): Price | undefined {
  return priceFor(withProxyPrice(settings, proxy), table);
}

export function draftForecast(pacing: PacingConfig, price: Price | undefined, budget?: BudgetConfig): Forecast {
  return forecast({ pacing, idleWakes: [], ...(price ? { typicalWakeUsd: costUsd(price, TYPICAL_IDLE_WAKE) } : {}), ...(budget ? { budget } : {}) });
}
