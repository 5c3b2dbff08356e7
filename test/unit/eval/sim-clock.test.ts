// lib/eval/sim-clock.ts: waits are skipped, real work takes its real time.
// A five-hour sleep can only end within the test's timeout if the clock
// skips it; what is checked is the simulated time each sleeper wakes at.
import { describe, expect, it } from "vitest";
import { simClock } from "@/lib/eval/sim-clock";

const START = Date.UTC(2026, 0, 5, 8);
const H = 3_600_000;
const never = () => new AbortController().signal;

describe("the simulated clock", () => {
  it("skips a wait nobody lives through, waking the sleeper at its due time", async () => {
    const clock = simClock(START);
    expect(clock.now() - START).toBeLessThan(1000);
    await clock.sleep(5 * H, never());
    expect(clock.now() - START).toBeGreaterThanOrEqual(5 * H);
    expect(clock.now() - START).toBeLessThan(5 * H + 1000);
    expect(clock.skippedMs()).toBeGreaterThan(5 * H - 1000);
  });

  it("wakes sleepers in the order of their due times, each at its own", async () => {
    const clock = simClock(START);
    const woke: [string, number][] = [];
    const sleep = (name: string, ms: number) => clock.sleep(ms, never()).then(() => woke.push([name, clock.now() - START]));
    await Promise.all([sleep("day", 24 * H), sleep("hour", H), sleep("minute", 60_000)]);
    expect(woke.map(([n]) => n)).toEqual(["minute", "hour", "day"]);
    const at = Object.fromEntries(woke);
    expect(at.minute).toBeGreaterThanOrEqual(60_000);
    expect(at.hour).toBeGreaterThanOrEqual(H);
    expect(at.day).toBeGreaterThanOrEqual(24 * H);
    expect(at.day).toBeLessThan(24 * H + 1000);
  });

  it("does not jump while real work is in flight, but wakes a short sleeper when its time really comes", async () => {
    const clock = simClock(START);
    let finish!: () => void;
    const work = clock.busy(new Promise<void>((r) => (finish = r)));
    let longWoke = false;
    const long = clock.sleep(H, never()).then(() => (longWoke = true));
    // A 30 ms wait during the work: woken after 30 real ms, the clock not having jumped.
    await clock.sleep(30, never());
    expect(longWoke).toBe(false);
    expect(clock.now() - START).toBeLessThan(H);
    await new Promise((r) => setTimeout(r, 20));
    expect(longWoke).toBe(false);
    finish();
    await work;
    await long;
    expect(clock.now() - START).toBeGreaterThanOrEqual(H);
  });

  it("lets an aborted sleeper go at once, without moving the clock", async () => {
    const clock = simClock(START);
    const stop = new AbortController();
    const pending = clock.sleep(10 * H, stop.signal);
    stop.abort();
    await pending;
    expect(clock.now() - START).toBeLessThan(1000);
    expect(clock.waiting()).toBe(0);
    await clock.sleep(0, stop.signal);
    expect(clock.skippedMs()).toBe(0);
  });

  it("plays a mind's week: a loop that sleeps by its pacing while events arrive at their hours", async () => {
    const clock = simClock(START);
    const seen: number[] = [];
    const stop = new AbortController();
    const events = [0.5, 1, 30, 50, 167].map((h) => h * H);
    const driver = (async () => {
      for (const at of events) {
        await clock.sleep(at - (clock.now() - START), never());
        seen.push(Math.round((clock.now() - START) / H * 10) / 10);
      }
      stop.abort();
    })();
    let wakes = 0;
    while (!stop.signal.aborted) {
      wakes++;
      await clock.sleep(1_800_000, stop.signal); // a half-hour pacing cap
    }
    await driver;
    expect(seen).toEqual([0.5, 1, 30, 50, 167]);
    // 167 hours of half-hour wakes: about 334.
    expect(wakes).toBeGreaterThan(330);
    expect(wakes).toBeLessThan(340);
    // Each jump waits a couple of real milliseconds for the world to settle: room for a busy machine.
  }, 60_000);
});

describe("the fixed clock (a repeatable run)", () => {
  it("counts charged work its charge from its start, whatever it really took, and never lets real time pass", async () => {
    const clock = simClock(START, { fixed: true });
    await clock.busy(new Promise((r) => setTimeout(r, 30)), 2000);
    expect(clock.now() - START).toBe(2000);
    // Two calls out at once overlap: both end two seconds after they began.
    await Promise.all([clock.busy(Promise.resolve(), 2000), clock.busy(new Promise((r) => setTimeout(r, 10)), 2000)]);
    expect(clock.now() - START).toBe(4000);
    // A block counts nothing.
    await clock.busy(new Promise((r) => setTimeout(r, 20)));
    expect(clock.now() - START).toBe(4000);
    await clock.sleep(H, never());
    expect(clock.now() - START).toBe(4000 + H);
  });

  it("hands charged work back in the order it began, the fast after the slow that began first", async () => {
    const clock = simClock(START, { fixed: true });
    const order: string[] = [];
    const slow = clock.busy(new Promise((r) => setTimeout(r, 40)), 1000).then(() => order.push("slow"));
    const fast = clock.busy(Promise.resolve(), 1000).then(() => order.push("fast"));
    await Promise.all([slow, fast]);
    expect(order).toEqual(["slow", "fast"]);
  });
});
