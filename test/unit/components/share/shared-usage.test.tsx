// An operator's Usage panel (components/share/SharedUsage.tsx), on its
// server-rendered HTML: "Loading…" before the first read, then today and this
// hour against the caps (today's exact figure in data-usd), the burn rate,
// the 30 days in sum, a cap reached said in words, and caps not known.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SharedUsage, UsageFigures } from "@/components/share/SharedUsage";
import type { MindUsage } from "@/lib/sharing/wire";
import { shareClient } from "@/lib/sharing/client";

const NOW = Date.UTC(2026, 11, 2, 10, 30);
const bucket = (start: number, calls: number, usd: number) => ({ start, calls, inputTokens: calls * 1000, cachedInputTokens: calls * 100, outputTokens: calls * 50, usd });
const hours = Array.from({ length: 48 }, (_, i) => bucket(Date.UTC(2026, 10, 30, 11 + i), i === 47 ? 3 : 0, i === 47 ? 0.375 : 0));
const days = Array.from({ length: 30 }, (_, i) => bucket(Date.UTC(2026, 10, 3 + i), i === 29 ? 5 : i === 7 ? 1 : 0, i === 29 ? 0.9375 : i === 7 ? 2 : 0));
const USAGE: MindUsage = { now: NOW, caps: { hour_usd: 1, day_usd: 5 }, hour_usd: 0.375, day_usd: 0.9375, burn_usd_per_hour: 0.875, hour: { bucket: "hour", buckets: hours }, day: { bucket: "day", buckets: days } };

const text = (html: string) => html.replace(/<[^>]*>/g, "").replace(/&#x27;|&apos;/g, "'");

describe("SharedUsage", () => {
  it("says Loading… in its panel until the first read comes back", () => {
    const client = shareClient(() => new Promise<Response>(() => undefined), "t".repeat(43));
    const html = renderToStaticMarkup(<SharedUsage client={client} />);
    expect(html).toContain('data-testid="shared-usage"');
    expect(text(html)).toBe("UsageRefreshLoading…");
  });

  it("shows today and this hour against the caps, the burn rate and the 30 days in sum", () => {
    const html = renderToStaticMarkup(<UsageFigures usage={USAGE} />);
    expect(/<span data-testid="shared-usage-today" data-usd="([^"]*)">([^<]*)<\/span>/.exec(html)?.slice(1)).toEqual(["0.9375", "$0.94"]);
    const words = text(html);
    expect(words).toContain("This hour: $0.38 of $1.00Today: $0.94 of $5.00Burn rate: $0.88/h (what the last 60 minutes cost)");
    expect(words).toContain("Last 30 days: 6 model calls, 6,000 tokens in (600 from cache), 300 out, $2.94.");
    expect(words).not.toContain("spend cap");
    // The owner's table, with the current hour and day and each day with a call.
    expect(html.match(/data-testid="usage-row"/g)).toHaveLength(3);
  });

  it("says when a cap is reached, and when the server knows no caps", () => {
    expect(text(renderToStaticMarkup(<UsageFigures usage={{ ...USAGE, caps: { hour_usd: 0.25, day_usd: 5 } }} />))).toContain("It is at its hourly spend cap");
    expect(text(renderToStaticMarkup(<UsageFigures usage={{ ...USAGE, caps: { hour_usd: 0.25, day_usd: 0.5 } }} />))).toContain("It is at its daily spend cap");
    const none = text(renderToStaticMarkup(<UsageFigures usage={{ ...USAGE, caps: null }} />));
    expect(none).toContain("Today: $0.94Burn rate");
    expect(none).toContain("The server holds no spend caps for this mind");
  });
});
