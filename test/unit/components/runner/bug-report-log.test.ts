// The recent worker log a bug report carries: a bounded ring per mind, oldest
// out first, kept when the runner unmounts, copied out (never shared).
import { describe, expect, it } from "vitest";
import { forgetRunner, LOG_LIMIT, logRunner, runnerLog } from "@/components/runner/runner-store";

describe("the runner log", () => {
  it("keeps the newest LOG_LIMIT entries of each mind, in order", () => {
    for (let i = 0; i < LOG_LIMIT + 25; i++) logRunner("mind-a", { at: 1000 + i, level: "info", from: "worker", text: `line ${i}` });
    logRunner("mind-b", { at: 5, level: "error", from: "runner", text: "other mind" });
    const a = runnerLog("mind-a");
    expect(a).toHaveLength(LOG_LIMIT);
    expect(a[0]).toEqual({ at: 1025, level: "info", from: "worker", text: "line 25" });
    expect(a.at(-1)).toEqual({ at: 1000 + LOG_LIMIT + 24, level: "info", from: "worker", text: `line ${LOG_LIMIT + 24}` });
    expect(runnerLog("mind-b")).toEqual([{ at: 5, level: "error", from: "runner", text: "other mind" }]);
  });

  it("outlives the runner's unmount, and hands out copies", () => {
    logRunner("mind-c", { at: 1, level: "warn", from: "runner", text: "panic stop: worker terminated" });
    forgetRunner("mind-c");
    const copy = runnerLog("mind-c");
    copy.push({ at: 2, level: "info", from: "runner", text: "not in the log" });
    expect(runnerLog("mind-c")).toEqual([{ at: 1, level: "warn", from: "runner", text: "panic stop: worker terminated" }]);
    expect(runnerLog("no-such-mind")).toEqual([]);
  });
});
