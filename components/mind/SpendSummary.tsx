"use client";
// What the mind costs: this UTC hour, this UTC day, and the burn rate (what
// the last 60 minutes cost, as USD per hour), next to its caps.
import type { BudgetConfig } from "@/lib/trajectory/schema";
import { useSpend } from "@/lib/store/view/hooks-settings";

const usd = (n: number) => `$${n > 0 && n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;

export function SpendSummary({ mindId, budget }: { mindId: string; budget?: BudgetConfig }) {
  const spend = useSpend(mindId);
  const of = (cap: number | undefined) => (cap === undefined ? "" : ` of ${usd(cap)}`);
  return (
    <p className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-stone-600 dark:text-stone-400" aria-label="Spend">
      <span>
        This hour: <span data-testid="spend-hour">{spend ? usd(spend.hourUsd) : "…"}</span>
        {of(budget?.hour_usd)}
      </span>
      <span>
        Today: <span data-testid="spend-day">{spend ? usd(spend.dayUsd) : "…"}</span>
        {of(budget?.day_usd)}
      </span>
      <span>
        Burn rate: <span data-testid="burn-rate">{spend ? `${usd(spend.burnUsdPerHour)}/h` : "…"}</span> over the last hour
      </span>
      {!budget && <strong className="text-red-700 dark:text-red-400">No spend caps: set them in Settings to start this mind.</strong>}
    </p>
  );
}
