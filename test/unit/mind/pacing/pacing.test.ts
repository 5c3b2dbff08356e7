// lib/mind/pacing/pacing.ts: Headlong's idle backoff, with its numbers.
import { describe, expect, it } from "vitest";
import { afterWake, DEFAULT_PACING, delaySeconds, failureDelaySeconds, RESTED, type PacingState } from "../../../../lib/mind/pacing/pacing";

const EMPTY = { reactive: false, didWork: false };

describe("delaySeconds", () => {
  it("levels 0..8 give 0, 5, 10, 20, 40, 80, 160, 300, 300 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((l) => delaySeconds(l, DEFAULT_PACING))).toEqual([0, 5, 10, 20, 40, 80, 160, 300, 300]);
  });

  it("a negative level is no pause; an absurd level is the cap, not Infinity", () => {
    expect(delaySeconds(-3, DEFAULT_PACING)).toBe(0);
    expect(delaySeconds(5000, DEFAULT_PACING)).toBe(300);
  });

  it("follows the configured base and cap", () => {
    const cfg = { base_s: 2, cap_s: 12, ticks_per_level: 1 };
    expect([0, 1, 2, 3, 4, 5].map((l) => delaySeconds(l, cfg))).toEqual([0, 2, 4, 8, 12, 12]);
  });
});

describe("afterWake", () => {
  it("30 empty spontaneous wakes from rest: three wakes per level, up to the cap", () => {
    let state: PacingState = RESTED;
    const delays: number[] = [];
    const levels: number[] = [];
    for (let wake = 0; wake < 30; wake++) {
      delays.push(delaySeconds(state.level, DEFAULT_PACING)); // the pause before this wake
      state = afterWake(state, EMPTY, DEFAULT_PACING);
      levels.push(state.level);
    }
    expect(delays).toEqual([
      0, 0, 0, 5, 5, 5, 10, 10, 10, 20, 20, 20, 40, 40, 40, 80, 80, 80, 160, 160, 160, 300, 300, 300, 300, 300, 300, 300, 300, 300,
    ]);
    // The level stops growing once its delay is the cap (level 7 = 300 s).
    expect(levels).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
  });

  it("ticks count up within a level and go back to 0 when the level rises", () => {
    const s1 = afterWake(RESTED, EMPTY, DEFAULT_PACING);
    const s2 = afterWake(s1, EMPTY, DEFAULT_PACING);
    const s3 = afterWake(s2, EMPTY, DEFAULT_PACING);
    expect([s1, s2, s3]).toEqual([
      { level: 0, ticks: 1 },
      { level: 0, ticks: 2 },
      { level: 1, ticks: 0 },
    ]);
  });

  it("a reactive wake resets level and ticks to rest", () => {
    expect(afterWake({ level: 5, ticks: 2 }, { reactive: true, didWork: false }, DEFAULT_PACING)).toEqual({ level: 0, ticks: 0 });
  });

  it("a wake that did work resets level and ticks to rest", () => {
    expect(afterWake({ level: 7, ticks: 1 }, { reactive: false, didWork: true }, DEFAULT_PACING)).toEqual({ level: 0, ticks: 0 });
  });

  it("after a reset the climb starts again from 0", () => {
    let state: PacingState = { level: 4, ticks: 2 };
    state = afterWake(state, { reactive: true, didWork: false }, DEFAULT_PACING);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      state = afterWake(state, EMPTY, DEFAULT_PACING);
      delays.push(delaySeconds(state.level, DEFAULT_PACING));
    }
    expect(delays).toEqual([0, 0, 5, 5]);
  });

  it("uses ticks_per_level from the config, and stops at the configured cap", () => {
    const cfg = { base_s: 1, cap_s: 4, ticks_per_level: 2 };
    let state: PacingState = RESTED;
    const seen: PacingState[] = [];
    for (let i = 0; i < 10; i++) seen.push((state = afterWake(state, EMPTY, cfg)));
    expect(seen).toEqual([
      { level: 0, ticks: 1 },
      { level: 1, ticks: 0 },
      { level: 1, ticks: 1 },
      { level: 2, ticks: 0 },
      { level: 2, ticks: 1 },
      { level: 3, ticks: 0 },
      { level: 3, ticks: 1 },
      { level: 3, ticks: 0 },
      { level: 3, ticks: 1 },
      { level: 3, ticks: 0 },
    ]);
    expect(delaySeconds(3, cfg)).toBe(4);
  });
});

describe("failureDelaySeconds", () => {
  it("backs off 5, 10, 20 … s after consecutive failures, up to the cap; no failures, no pause", () => {
    expect([-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => failureDelaySeconds(n, DEFAULT_PACING))).toEqual([
      0, 0, 5, 10, 20, 40, 80, 160, 300, 300, 300,
    ]);
  });
});
