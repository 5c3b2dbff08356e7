// The one writer of sync_steps (lib/server/sync/steps.ts), on both engines:
// rows numbered on from the mind's last seq (or at an uploader's own seqs),
// the mind's counters kept with them, live viewers told on commit and only
// then; a seq that does not follow writes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { SYNC_CHANNEL, writeSteps } from "@/lib/server/sync/steps";
import { engines } from "../databases";
import { dump, instance, newMind, thought, type App } from "./harness";

const row = (n: number, seq?: number) => {
  const t = thought(n);
  return { traj: "root", step_id: t.id, type: "thought", json: t.json, ...(seq === undefined ? {} : { seq }) };
};

for (const engine of engines) {
  describe.skipIf(engine.skip)(`the one writer of steps on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const held = async (mind: string) => {
      const steps = await sql.query<{ seq: string | number; step_id: string }>("SELECT seq, step_id FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind]);
      const [m] = await sql.query<{ last_seq: string | number; bytes: string | number; step_count: string | number }>("SELECT last_seq, bytes, step_count FROM sync_minds WHERE id = $1", [mind]);
      return { seqs: steps.map((s) => Number(s.seq)), ids: steps.map((s) => s.step_id), last_seq: Number(m?.last_seq), bytes: Number(m?.bytes), steps: Number(m?.step_count) };
    };

    it("numbers rows on from the last seq, or at an uploader's own, and keeps the mind's counters with them", async () => {
      const { mind } = await newMind(app);
      const before = await held(mind);
      const [a, b, c] = [row(1), row(2), row(9, 7)];
      expect(await sql.transaction((tx) => writeSteps(tx, mind, [a, b]))).toEqual({ before: 0, last: 2, bytes: Buffer.byteLength(a.json + b.json) });
      expect(await sql.transaction((tx) => writeSteps(tx, mind, [c]))).toEqual({ before: 2, last: 7, bytes: Buffer.byteLength(c.json) });
      expect(await held(mind)).toEqual({
        seqs: [1, 2, 7],
        ids: [a.step_id, b.step_id, c.step_id],
        last_seq: 7,
        bytes: before.bytes + Buffer.byteLength(a.json + b.json + c.json),
        steps: before.steps + 3,
      });
      // Nothing to write: nothing changes.
      expect(await sql.transaction((tx) => writeSteps(tx, mind, []))).toEqual({ before: 7, last: 7, bytes: 0 });
    });

    it("writes nothing when a seq does not follow, and refuses a mind that is not there", async () => {
      const { mind } = await newMind(app);
      await sql.transaction((tx) => writeSteps(tx, mind, [row(1), row(2)]));
      const before = await dump(sql);
      await expect(sql.transaction((tx) => writeSteps(tx, mind, [row(3), row(4, 3)]))).rejects.toThrow(/seq 3 does not follow 3/);
      await expect(sql.transaction((tx) => writeSteps(tx, mind, [row(5, 2)]))).rejects.toThrow(/seq 2 does not follow 2/);
      await expect(sql.transaction((tx) => writeSteps(tx, "no-such-mind", [row(6)]))).rejects.toThrow(/no mind no-such-mind/);
      expect(await dump(sql)).toEqual(before);
    });

    it("tells live viewers once the rows are committed, and not when they roll back", async () => {
      const { mind } = await newMind(app);
      const heard: string[] = [];
      const unlisten = await sql.listen(SYNC_CHANNEL, (payload) => void heard.push(payload));
      try {
        await sql.transaction((tx) => writeSteps(tx, mind, [row(1)]));
        await expect.poll(() => heard.filter((h) => h === mind).length, { timeout: 10_000 }).toBe(1);
        const other = (await newMind(app)).mind;
        await expect(
          sql.transaction(async (tx) => {
            await writeSteps(tx, other, [row(2)]);
            throw new Error("rolled back");
          }),
        ).rejects.toThrow("rolled back");
        // Told in commit order: once the next commit is heard, a notice of the rolled-back write would have come before it.
        await sql.transaction((tx) => writeSteps(tx, mind, [row(3)]));
        await expect.poll(() => heard.filter((h) => h === mind).length, { timeout: 10_000 }).toBe(2);
        expect(heard).not.toContain(other);
        expect((await held(other)).seqs).toEqual([]);
        expect((await held(mind)).seqs).toEqual([1, 2]);
      } finally {
        await unlisten();
      }
    });
  });
}
