// Minds' wakes on the job queue (lib/server/runner/wakes.ts, pg-boss over our
// Sql), on both engines: a wake is taken when due and not before, once; one
// queued wake per mind (setting it again moves it, `now` pulls it forward,
// `clear` drops it, `by` pulls it in only when it is later); two runner processes' queues on one database take each
// wake once between them; a wake whose handler fails is taken again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { openWakeQueue, type Wake, type WakeQueue } from "@/lib/server/runner/wakes";
import { engines } from "../databases";

/** Resolves when `cond` holds, checking every 20 ms; rejects after `ms`. */
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`wakes on ${engine.name}`, { timeout: 60_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let queue: WakeQueue;
    const taken: (Wake & { at: number; by: string })[] = [];
    let fail = new Set<string>();

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      queue = await openWakeQueue(sql);
      await queue.work(async (w) => {
        if (fail.has(w.mind)) {
          fail.delete(w.mind);
          throw new Error(`failing ${w.mind} once`);
        }
        taken.push({ ...w, at: Date.now(), by: "one" });
      });
    }, 120_000);
    afterAll(async () => {
      await queue?.stop();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const of = (mind: string) => taken.filter((t) => t.mind === mind);

    it("a wake is taken once when due, not before", async () => {
      const due = new Date(Date.now() + 700);
      await queue.set("mind-a", due, "scheduled");
      await until(() => of("mind-a").length === 1);
      const [w] = of("mind-a");
      expect(w).toMatchObject({ mind: "mind-a", reason: "scheduled", due: due.getTime() });
      // Not before it was due (the database's clock and ours are this machine's).
      expect(w!.at).toBeGreaterThanOrEqual(due.getTime() - 20);
    });

    it("one queued wake per mind: setting it again moves it, now() pulls it to now, clear() drops it", async () => {
      await queue.set("mind-b", new Date(Date.now() + 60_000), "scheduled");
      await queue.set("mind-b", new Date(Date.now() + 30_000), "scheduled");
      await queue.now("mind-b", "message");
      await until(() => of("mind-b").length === 1);
      expect(of("mind-b")[0]).toMatchObject({ reason: "message" });

      await queue.set("mind-c", new Date(Date.now() + 400), "scheduled");
      await queue.clear("mind-c");
      await queue.set("mind-d", new Date(Date.now() + 400), "alarm");
      await until(() => of("mind-d").length === 1);
      // mind-c was due before mind-d and polled past: it is gone.
      await new Promise((r) => setTimeout(r, 600));
      expect(of("mind-c")).toEqual([]);
      expect(of("mind-b")).toHaveLength(1);
    });

    it("by() wakes a mind at a time at the latest: an earlier queued wake stays, a later one is pulled in, none is made twice", async () => {
      // Queued sooner than asked: it stays, and is taken when it was due.
      await queue.set("mind-f", new Date(Date.now() + 300), "scheduled");
      await queue.by("mind-f", new Date(Date.now() + 60_000), "message");
      await until(() => of("mind-f").length === 1);
      expect(of("mind-f")[0]).toMatchObject({ reason: "scheduled" });
      // Queued later than asked: pulled in to the time asked.
      await queue.set("mind-g", new Date(Date.now() + 60_000), "scheduled");
      const at = new Date(Date.now() + 400);
      await queue.by("mind-g", at, "message");
      await until(() => of("mind-g").length === 1);
      expect(of("mind-g")[0]).toMatchObject({ reason: "message", due: at.getTime() });
      // None queued: one is.
      await queue.by("mind-h", new Date(Date.now() + 200), "message");
      await until(() => of("mind-h").length === 1);
      await new Promise((r) => setTimeout(r, 600));
      expect([of("mind-f"), of("mind-g"), of("mind-h")].map((w) => w.length)).toEqual([1, 1, 1]);
    });

    it("a wake whose handler fails is taken again", async () => {
      fail = new Set(["mind-e"]);
      await queue.now("mind-e", "scheduled");
      await until(() => of("mind-e").length === 1, 30_000);
      expect(fail.size).toBe(0);
    });

    it("two runners on one database take each of 40 wakes once between them", async () => {
      const other = await openWakeQueue(sql);
      try {
        await other.work(async (w) => void taken.push({ ...w, at: Date.now(), by: "two" }));
        const minds = Array.from({ length: 40 }, (_, i) => `many-${i}`);
        const due = new Date(Date.now() + 300);
        await Promise.all(minds.map((m) => queue.set(m, due, "scheduled")));
        await until(() => minds.every((m) => of(m).length >= 1));
        await new Promise((r) => setTimeout(r, 1200));
        for (const m of minds) expect(of(m)).toHaveLength(1);
        console.log(`${engine.name}: 40 wakes taken by ${JSON.stringify(Object.fromEntries(["one", "two"].map((by) => [by, taken.filter((t) => t.mind.startsWith("many-") && t.by === by).length])))}`);
      } finally {
        await other.stop();
      }
    });
  });
}
