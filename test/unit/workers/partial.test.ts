/**
 * The worker's reports of a streaming reply to its page (workers/partial.ts):
 * four a second at most, the newest text each time, nothing for a reply that
 * is over at once, and the clearing "" only when a partial was shown.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PARTIAL_FIRST_MS, partialReporter } from "../../../workers/partial";

const REPORT_MS = 250;
let posted: string[];
let report: (text: string) => void;

beforeEach(() => {
  vi.useFakeTimers();
  posted = [];
  report = partialReporter((t) => posted.push(t), REPORT_MS);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("partial reports", () => {
  it("posts nothing for a reply that is over within PARTIAL_FIRST_MS, however many chunks it had", () => {
    for (let call = 0; call < 50; call++) {
      for (let i = 1; i <= 10; i++) report("x".repeat(i));
      vi.advanceTimersByTime(2);
      report("");
    }
    vi.advanceTimersByTime(1000);
    expect(posted).toEqual([]);
  });

  it("shows a longer reply's newest text PARTIAL_FIRST_MS in, then at most every REPORT_MS, and clears it at the end", () => {
    let text = "";
    // A chunk every 10 ms for 1 s.
    for (let t = 0; t < 1000; t += 10) {
      text += "ab";
      report(text);
      vi.advanceTimersByTime(10);
    }
    report("");
    expect(posted.at(-1)).toBe("");
    const shown = posted.slice(0, -1);
    expect(shown[0]).toBe("ab".repeat(PARTIAL_FIRST_MS / 10));
    // 1 s of streaming: the first at 100 ms, then 350, 600, 850.
    expect(shown.length).toBe(4);
    for (let i = 1; i < shown.length; i++) expect(shown[i]!.length).toBe(shown[i - 1]!.length + 2 * (REPORT_MS / 10));
  });

  it("keeps the page's pace across calls: a new reply right after a report waits out REPORT_MS", () => {
    report("first");
    vi.advanceTimersByTime(PARTIAL_FIRST_MS);
    expect(posted).toEqual(["first"]);
    report("");
    expect(posted).toEqual(["first", ""]);
    report("second");
    vi.advanceTimersByTime(REPORT_MS - 1);
    expect(posted).toEqual(["first", ""]);
    vi.advanceTimersByTime(1);
    expect(posted).toEqual(["first", "", "second"]);
  });

  it("sends no clearing \"\" when nothing was shown, and no text after a call is over", () => {
    report("a");
    report("");
    report("");
    vi.advanceTimersByTime(1000);
    expect(posted).toEqual([]);
  });
});
