// A mind's lease and its fence, on both engines: one holder at a time at an
// epoch that only grows; renewal, expiry and release (held until the step its
// holder names is in, so the next home starts after it); two runners racing
// for one mind; and every write, by upload or by the server's own home of the
// mind's state, refused (409 fenced) unless it carries the lease's epoch,
// leaving the database as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { HttpError } from "@/lib/server/http/route";
import { acquireLease, checkFence, releaseLease, renewLease } from "@/lib/server/state/lease";
import { sqlMindState } from "@/lib/server/state/sql-mind-state";
import { engines } from "../databases";
import { dump, instance, newMind, thought, upload, type App } from "../sync/harness";

/** Lapse a lease now, as if its holder had stopped renewing it a while ago. */
const lapse = (sql: Sql, mind: string) => sql.query("UPDATE mind_leases SET expires_at = now() - interval '1 second' WHERE mind = $1", [mind]);

for (const engine of engines) {
  describe.skipIf(engine.skip)(`leases on ${engine.name}`, { timeout: 120_000 }, () => {
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

    it("one holder at a time; the same holder again, or anyone after it lapses or is released, takes the next epoch", async () => {
      const { mind } = await newMind(app);
      const tab = await acquireLease(sql, mind, "tab-1");
      expect(tab).toMatchObject({ ok: true, lease: { holder: "tab-1", epoch: 1 } });
      const busy = await acquireLease(sql, mind, "runner-a");
      expect(busy).toMatchObject({ ok: false, lease: { holder: "tab-1", epoch: 1 } });
      expect(Date.parse(busy.lease.expires_at)).toBeGreaterThan(Date.now());
      // The tab started again: its new session fences the old one.
      expect(await acquireLease(sql, mind, "tab-1")).toMatchObject({ ok: true, lease: { epoch: 2 } });
      await lapse(sql, mind);
      expect(await acquireLease(sql, mind, "runner-a")).toMatchObject({ ok: true, lease: { holder: "runner-a", epoch: 3 } });
      expect(await releaseLease(sql, mind, "runner-a", 3)).toBe(true);
      expect(await releaseLease(sql, mind, "runner-a", 3)).toBe(true);
      expect(await acquireLease(sql, mind, "tab-1")).toMatchObject({ ok: true, lease: { holder: "tab-1", epoch: 4 } });
      expect(await releaseLease(sql, mind, "runner-a", 3)).toBe(false);
    });

    it("renewal pushes the expiry back for the lease's own epoch only", async () => {
      const { mind } = await newMind(app);
      const first = await acquireLease(sql, mind, "runner-a", 30);
      if (!first.ok) throw new Error("not taken");
      const renewed = await renewLease(sql, mind, "runner-a", 1, 300);
      expect(renewed).toMatchObject({ holder: "runner-a", epoch: 1 });
      expect(Date.parse((renewed as { expires_at: string }).expires_at)).toBeGreaterThan(Date.parse(first.lease.expires_at));
      await lapse(sql, mind);
      // Lapsed but not taken: the holder may still renew (nobody wrote in between).
      expect(await renewLease(sql, mind, "runner-a", 1)).toMatchObject({ epoch: 1 });
      await lapse(sql, mind);
      expect(await acquireLease(sql, mind, "runner-b")).toMatchObject({ ok: true, lease: { epoch: 2 } });
      expect(await renewLease(sql, mind, "runner-a", 1)).toBe("fenced");
      expect(await renewLease(sql, mind, "runner-a", 2)).toBe("fenced");
    });

    it("two runners racing for one mind: exactly one takes it", async () => {
      const { mind } = await newMind(app);
      const tries = await Promise.all(Array.from({ length: 12 }, (_, i) => acquireLease(sql, mind, `runner-${i}`)));
      const won = tries.filter((t) => t.ok);
      expect(won).toHaveLength(1);
      for (const t of tries) expect(t.lease).toEqual(won[0]!.lease);
    });

    it("uploads and blobs: a never-leased mind takes writes without an epoch; once leased, only with the lease's epoch", async () => {
      const m = await newMind(app);
      expect((await upload(app, m, 0, [thought(1)])).status).toBe(200);
      expect((await upload(app, m, 1, [thought(2)], { epoch: 1 })).status).toBe(409);
      const got = await acquireLease(sql, m.mind, "tab-1");
      if (!got.ok) throw new Error("not taken");
      const refused = async (run: () => Promise<Response>) => {
        const before = await dump(sql);
        const res = await run();
        expect(res.status).toBe(409);
        expect((await res.json()).error.code).toBe("fenced");
        expect(await dump(sql)).toEqual(before);
      };
      await refused(() => upload(app, m, 1, [thought(2)]));
      expect((await upload(app, m, 1, [thought(2)], { epoch: 1 })).status).toBe(200);
      // A runner takes the mind over: the tab's next write is fenced, with nothing written.
      await lapse(sql, m.mind);
      expect(await acquireLease(sql, m.mind, "runner-a")).toMatchObject({ ok: true, lease: { epoch: 2 } });
      await refused(() => upload(app, m, 2, [thought(3)], { epoch: 1 }));
      const put = (epoch: string | undefined) =>
        app.call("PUT", `/api/sync/minds/${m.mind}/blobs/blobs/x.txt`, { token: m.token, body: "text", headers: { "content-type": "text/plain", ...(epoch ? { "x-reverie-epoch": epoch } : {}) } });
      await refused(() => put("1"));
      await refused(() => put(undefined));
      expect((await put("2")).status).toBe(204);
      expect((await put("zero")).status).toBe(400);
    });

    it("the lease route: take, renew, refuse while held, fence a stale epoch, release", async () => {
      const m = await newMind(app);
      const lease = (method: string, body: unknown) => app.call(method, `/api/sync/minds/${m.mind}/lease`, { token: m.token, body });
      const taken = await lease("POST", { holder: "tab-1" });
      expect(taken.status).toBe(200);
      expect(await taken.json()).toMatchObject({ holder: "tab-1", epoch: 1 });
      const held = await lease("POST", { holder: "runner-a" });
      expect(held.status).toBe(409);
      expect((await held.json()).error).toMatchObject({ code: "leased", holder: "tab-1" });
      expect((await lease("POST", { holder: "tab-1", epoch: 1, ttl_s: 60 })).status).toBe(200);
      expect((await lease("POST", { holder: "tab-1", epoch: 7 })).status).toBe(409);
      expect((await lease("DELETE", { holder: "tab-1" })).status).toBe(400);
      expect((await lease("DELETE", { holder: "tab-1", epoch: 1 })).status).toBe(204);
      expect(await (await lease("POST", { holder: "runner-a" })).json()).toMatchObject({ holder: "runner-a", epoch: 2 });
      expect((await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: "wrong", body: { holder: "x" } })).status).toBe(401);
    });

    it("a release naming its holder's newest step lets the lease go only once that step is in, or once the lease would have lapsed", async () => {
      const m = await newMind(app);
      const got = await acquireLease(sql, m.mind, "tab-1", 5);
      if (!got.ok) throw new Error("not taken");
      const last = thought(1);
      const settled: string[] = [];
      // The tab lets go naming a step whose upload is still on its way.
      const releasing = releaseLease(sql, m.mind, "tab-1", 1, last.id).then((ok) => void settled.push(`released ${ok}`));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toEqual([]);
      expect(await acquireLease(sql, m.mind, "runner-a")).toMatchObject({ ok: false, lease: { holder: "tab-1", epoch: 1 } });
      // Its upload lands under its epoch (nobody else could take the lease meanwhile), and only then is the lease let go.
      expect((await upload(app, m, 0, [last], { epoch: 1 })).status).toBe(200);
      await releasing;
      expect(settled).toEqual(["released true"]);
      expect(await acquireLease(sql, m.mind, "runner-a")).toMatchObject({ ok: true, lease: { holder: "runner-a", epoch: 2 } });

      // A step that never comes: the lease is held until it would have lapsed, never released sooner.
      await sql.query("UPDATE mind_leases SET expires_at = now() + interval '3 seconds' WHERE mind = $1", [m.mind]);
      const never = releaseLease(sql, m.mind, "runner-a", 2, thought(2).id).then((ok) => void settled.push(`released ${ok}`));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toHaveLength(1);
      expect(await acquireLease(sql, m.mind, "tab-1")).toMatchObject({ ok: false, lease: { holder: "runner-a" } });
      await never;
      expect(settled).toEqual(["released true", "released true"]);
      expect(await acquireLease(sql, m.mind, "tab-1")).toMatchObject({ ok: true, lease: { holder: "tab-1", epoch: 3 } });
      // Named by a holder whose epoch is gone: nothing to let go.
      expect(await releaseLease(sql, m.mind, "runner-a", 2, last.id)).toBe(false);
    });

    it("the server's home of the mind's state writes nothing once its epoch is not the lease's", async () => {
      const m = await newMind(app);
      const got = await acquireLease(sql, m.mind, "runner-a");
      if (!got.ok) throw new Error("not taken");
      const mine = sqlMindState(sql, m.mind, () => ({}), { epoch: got.lease.epoch });
      const step = JSON.parse(thought(1).json);
      await mine.append({ steps: [{ trajId: m.mind, step }], seen: [] });
      expect(await mine.count(m.mind)).toBe(1);
      await lapse(sql, m.mind);
      await acquireLease(sql, m.mind, "tab-1");
      const before = await dump(sql);
      const isFenced = (e: unknown) => e instanceof HttpError && e.code === "fenced";
      await expect(mine.append({ steps: [{ trajId: m.mind, step: JSON.parse(thought(2).json) }], seen: [] }).catch((e) => isFenced(e))).resolves.toBe(true);
      await expect(mine.putBlob(m.mind, "x.stdout", "late").catch((e) => isFenced(e))).resolves.toBe(true);
      await expect(mine.files.save([{ path: "/a", kind: "file", data: new Uint8Array([1]), mode: 0o644, mtime: 1 }], []).catch((e) => isFenced(e))).resolves.toBe(true);
      await expect(mine.saveShellState({ env: {}, cwd: "/" }).catch((e) => isFenced(e))).resolves.toBe(true);
      await expect(mine.savePacing({ level: 1, ticks: 0, failures: 0 }).catch((e) => isFenced(e))).resolves.toBe(true);
      expect(await dump(sql)).toEqual(before);
    });

    it.runIf(engine.name === "postgres")("a write that passed its fence commits before the lease can move", async () => {
      const m = await newMind(app);
      const got = await acquireLease(sql, m.mind, "tab-1");
      if (!got.ok) throw new Error("not taken");
      await lapse(sql, m.mind);
      const order: string[] = [];
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      let checked!: () => void;
      const passed = new Promise<void>((r) => (checked = r));
      const write = sql.transaction(async (tx) => {
        await checkFence(tx, m.mind, 1);
        checked();
        await gate;
        await tx.query("UPDATE sync_minds SET name = 'written under epoch 1' WHERE id = $1", [m.mind]);
      }).then(() => order.push("write committed"));
      await passed;
      const take = acquireLease(sql, m.mind, "runner-a").then((r) => order.push(`taken at epoch ${r.lease.epoch}`));
      await new Promise((r) => setTimeout(r, 300));
      open();
      await Promise.all([write, take]);
      expect(order).toEqual(["write committed", "taken at epoch 2"]);
    });
  });
}
