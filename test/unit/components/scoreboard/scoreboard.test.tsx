// The Scoreboard tab (components/scoreboard), on its server-rendered HTML: a
// probe-row per probe with its data-pass, every metric's exact figure in
// data-value, evidence links that open their steps in the viewer, the
// timeline's marks, the tokens chart, and a --vary run's variants side by side.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Scoreboard } from "@/components/scoreboard/Scoreboard";
import type { EvalResults } from "@/lib/eval/results";
import { METRICS } from "@/lib/eval/scoreboard";
import { makeResults, withVariants } from "../../../fixtures/eval-results";

const R = makeResults({ message: "msg-1", answer: "ans-1", other: "oth-1" });
const html = (r: EvalResults) => renderToStaticMarkup(<Scoreboard archiveId="arch-1" results={r} />);

/** Every element with this test id, as its opening tag. */
const tags = (out: string, testId: string) => out.match(new RegExp(`<[a-z]+ [^>]*data-testid="${testId}"[^>]*>`, "g")) ?? [];
const attr = (tag: string, name: string) => {
  const m = new RegExp(`${name}="([^"]*)"`).exec(tag);
  return m ? m[1]!.replace(/&quot;/g, '"').replace(/&amp;/g, "&") : undefined;
};

describe("Scoreboard", () => {
  const out = html(R);

  it("has one probe-row per probe, in order, with data-pass", () => {
    expect(tags(out, "probe-row").map((t) => [attr(t, "data-probe-id"), attr(t, "data-pass")])).toEqual(R.probes.map((p) => [p.id, String(p.pass)]));
  });

  it("shows every metric, its exact figure in data-value", () => {
    const cells = new Map(METRICS.map(({ name }) => [name, tags(out, `metric-${name}`)]));
    for (const [name, found] of cells) {
      expect(found, name).toHaveLength(1);
      expect(JSON.parse(attr(found[0]!, "data-value")!), name).toEqual(R.metrics[name]);
    }
  });

  it("shows a figure its words round or group as it is too", () => {
    const text = (name: string) => /data-testid="metric-[a-z0-9_]+"[^>]*>(.*?)<\/td>/.exec(out.slice(out.indexOf(`data-testid="metric-${name}"`)))?.[1]?.replace(/<[^>]*>/g, "|");
    expect(text("reply_rate")).toBe("83.3%|0.8333333333333334|");
    expect(text("tokens_per_hour_idle")).toBe("1,234/h|1234|");
    expect(text("model_calls")).toBe("57");
    expect(text("first_response_s_p50")).toBe("42 s");
    expect(text("context_tokens_max")).toBe("—");
  });

  it("links each evidence step to the viewer, selecting it", () => {
    expect(tags(out, "probe-evidence").map((t) => attr(t, "href"))).toEqual(["/view/arch-1?step=msg-1", "/view/arch-1?step=ans-1", "/view/arch-1?step=oth-1", "/view/arch-1?step=ans-1", "/view/arch-1?step=oth-1"]);
  });

  it("puts the probes with a time on the timeline (the run's own beside it), each mark linking to the step that decided it", () => {
    expect(tags(out, "probe-mark").map((t) => [attr(t, "data-probe-id"), attr(t, "data-pass"), attr(t, "data-at-h"), attr(t, "href")])).toEqual([
      ["hello", "true", "1.25", "/view/arch-1?step=ans-1"],
      ["cat", "false", "5.5", "/view/arch-1?step=ans-1"],
      // Decided by nothing happening: a ring where its message came (asked_h), linking to the message.
      ["quiet", "true", "3.5", "/view/arch-1?step=oth-1"],
    ]);
    expect(attr(tags(out, "probe-mark")[2]!, "data-decided")).toBe("false");
    expect(out).toMatch(/data-testid="probes-untimed"[^>]*>Over the whole run, with no time of their own: <span[^>]*>spend passed \(spent \$0\.0000 of \$1\)/);
    expect(attr(tags(out, "wake-density")[0]!, "data-wakes")).toBe("48");
  });

  it("has the header's facts and the tokens chart with its total", () => {
    expect(out).toContain(">a team&#x27;s day</strong>");
    expect(out).toContain('data-testid="score-model">openai-compatible/scripted<');
    expect(out).toContain('data-testid="score-seed">7<');
    expect(out).toContain("24 h of 24 h simulated");
    expect(out).not.toContain("score-stopped");
    expect(out).not.toContain('data-testid="variants"');
    expect(tags(out, "tokens-by-hour")).toHaveLength(1);
    expect(attr(tags(out, "tokens-summary")[0]!, "data-total")).toBe(String(R.tokens_by_hour.reduce((a, n) => a + n, 0)));
  });

  it("says when the run stopped early, and shades what was not played", () => {
    const short = html({ ...R, simulated_h: 6.5, complete: false });
    expect(short).toContain("6.5 h of 24 h simulated");
    expect(short).toContain('data-testid="score-stopped"');
    expect(short).toContain('title="Not played: the run stopped early"');
  });

  it("sets a --vary run's variants side by side, this run's column marked", () => {
    const v = withVariants(R);
    const vout = html(v);
    expect(vout).toContain('data-testid="score-label"');
    expect(tags(vout, "variant-col").map((t) => [attr(t, "data-label"), attr(t, "data-current")])).toEqual([
      ["pacing.cap_s=300", "true"],
      ["pacing.cap_s=60", "false"],
    ]);
    const rows = tags(vout, "variant-row").map((t) => attr(t, "data-row"));
    expect(rows.slice(0, 6)).toEqual(["passed", "simulated", "probe:hello", "probe:cat", "probe:quiet", "probe:spend"]);
    expect(rows).toHaveLength(6 + METRICS.length);
  });

  it("renders markup in results.json as inert text", () => {
    const xss = html({ ...R, scenario: "<img src=x onerror=alert(1)>", probes: [{ ...R.probes[0]!, why: "<script>alert(1)</script>" }] });
    expect(xss).not.toContain("<img src=x");
    expect(xss).not.toContain("<script>");
    expect(xss).toContain("&lt;script&gt;");
  });
});
