// Live links on both engines: server-sent events carry each appended step once,
// in order, with its seq as the event id; a reconnect resumes after
// Last-Event-ID; every viewer of a mind in one process shares one read per
// wake; an append through one server instance reaches a viewer on another at
// once (pg_notify; PGlite notifies in-process); revocation ends the stream,
// and so does forgetting the whole mind; a viewer that leaves is cleaned up;
// a lost notification is caught by the poll.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STEP_EVENT } from "@/lib/sharing/wire";
import type { Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";
import { instance, newLink, newMind, sseReader, thought, upload, type App } from "../sync/harness";

// Long enough that only a notification can deliver within a test's waits.
const NO_POLL = 600_000;

const until = async (ok: () => boolean, ms = 10_000) => {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

for (const engine of engines) {
  describe.skipIf(engine.skip)(`live links on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let second: Sql;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      // On PostgreSQL a second instance is a second pool and LISTEN connection; PGlite is one process.
      second = engine.name === "postgres" ? await db.open() : sql;
    }, 120_000);
    afterAll(async () => {
      if (second !== sql) await second?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const follow = (app: App, token: string, opts: { after?: number; lastEventId?: string; signal?: AbortSignal } = {}) =>
      app.call("GET", `/api/share/${token}/events${opts.after === undefined ? "" : `?after=${opts.after}`}`, { signal: opts.signal, headers: opts.lastEventId ? { "last-event-id": opts.lastEventId } : {} });
    const seqsOf = (events: { event: string; id?: string; data: string }[]) => events.map((e) => (e.event === STEP_EVENT ? JSON.parse(e.data).seq : e.event));

    it("streams each appended step once, in order, and resumes after Last-Event-ID (which wins over ?after)", async () => {
      const app = instance(sql, { pollMs: NO_POLL });
      try {
        const m = await newMind(app);
        const steps = [1, 2, 3, 4, 5, 6].map((n) => thought(n));
        await upload(app, m, 0, steps.slice(0, 2));
        const invite = await newLink(app, m, "invite");
        const ac = new AbortController();
        const res = await follow(app, invite.token, { after: 1, signal: ac.signal });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
        expect(res.headers.get("cache-control")).toMatch(/no-store/);
        const sse = sseReader(res);
        await sse.waitFor(1);
        await upload(app, m, 2, steps.slice(2, 4));
        await upload(app, m, 4, steps.slice(4, 5));
        const got = await sse.waitFor(4);
        expect(got).toEqual(steps.slice(1, 5).map((s) => ({ event: "step", id: String(s.seq), data: JSON.stringify({ seq: s.seq, traj: s.traj, json: s.json }) })));
        ac.abort();
        // Offline meanwhile: step 6 is appended; the browser reconnects with the last id it saw.
        await upload(app, m, 5, steps.slice(5));
        const again = sseReader(await follow(app, invite.token, { after: 0, lastEventId: "4" }));
        expect(seqsOf(await again.waitFor(2))).toEqual([5, 6]);
        await again.cancel();
        expect((await follow(app, invite.token, { lastEventId: "x" })).status).toBe(400);
      } finally {
        await app.close();
      }
    });

    it("fans out to every viewer of a mind from one read per wake, and forgets viewers that leave", async () => {
      let stepReads = 0;
      const counting: Sql = {
        ...sql,
        query: (text, params) => {
          if (/FROM sync_steps WHERE mind = \$1 AND seq > \$2 ORDER BY seq/.test(text)) stepReads++;
          return sql.query(text, params);
        },
      };
      const app = instance(counting, { pollMs: NO_POLL });
      try {
        const m = await newMind(app);
        await upload(app, m, 0, [thought(1)]);
        const live = await newLink(app, m, "live");
        const viewers = await Promise.all(Array.from({ length: 25 }, async () => {
          const ac = new AbortController();
          return { ac, sse: sseReader(await follow(app, live.token, { after: 1, signal: ac.signal })) };
        }));
        await until(() => app.live.stats().subscribers === 25);
        expect(app.live.stats()).toEqual({ minds: 1, subscribers: 25 });
        const readsBefore = stepReads;
        await upload(app, m, 1, [thought(2), thought(3)]);
        await Promise.all(viewers.map((v) => v.sse.waitFor(2)));
        for (const v of viewers) expect(seqsOf(v.sse.events)).toEqual([2, 3]);
        // One wake, one read (two if a wake raced the upload), for 25 viewers.
        expect(stepReads - readsBefore).toBeLessThanOrEqual(2);
        for (const v of viewers) v.ac.abort();
        await until(() => app.live.stats().minds === 0);
        expect(app.live.stats()).toEqual({ minds: 0, subscribers: 0 });
      } finally {
        await app.close();
      }
    });

    it("delivers an append through one instance to a viewer on another at once, without waiting for a poll", async () => {
      const a = instance(sql, { pollMs: NO_POLL });
      const b = instance(second, { pollMs: NO_POLL });
      try {
        const m = await newMind(a);
        const live = await newLink(a, m, "live");
        const onB = sseReader(await follow(b, live.token, { after: 0 }));
        await until(() => b.live.stats().subscribers === 1);
        const sentAt = Date.now();
        await upload(a, m, 0, [thought(1, "across instances")]);
        const [e] = await onB.waitFor(1, 5_000);
        expect(JSON.parse(e!.data)).toMatchObject({ seq: 1 });
        expect(Date.now() - sentAt).toBeLessThan(5_000);
        // Revoked through instance A: B's viewer is told, and its stream ends.
        await a.call("DELETE", `/api/sync/minds/${m.mind}/links/${live.id}`, { token: m.token });
        await onB.waitEnd(5_000);
        expect(onB.events.at(-1)).toEqual({ event: "revoked", data: "{}" });
        expect(await (await follow(b, live.token)).json()).toEqual({ error: { code: "not_found", message: "no such link, or it was revoked" } });
        await until(() => b.live.stats().minds === 0);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("tells a viewer on another instance its link is revoked when the mind's owner forgets the mind", async () => {
      const a = instance(sql, { pollMs: NO_POLL });
      const b = instance(second, { pollMs: NO_POLL });
      try {
        const m = await newMind(a);
        await upload(a, m, 0, [thought(1)]);
        const live = await newLink(a, m, "live");
        const onB = sseReader(await follow(b, live.token, { after: 0 }));
        expect(seqsOf(await onB.waitFor(1, 5_000))).toEqual([1]);
        expect((await a.call("DELETE", `/api/sync/minds/${m.mind}`, { token: m.token })).status).toBe(204);
        await onB.waitEnd(5_000);
        expect(seqsOf(onB.events)).toEqual([1, "revoked"]);
        expect((await follow(b, live.token)).status).toBe(404);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("catches, by its slow poll, steps and revocations whose notification never came", async () => {
      const app = instance(sql, { pollMs: 200 });
      try {
        const m = await newMind(app);
        const live = await newLink(app, m, "live");
        const sse = sseReader(await follow(app, live.token, { after: 0 }));
        await until(() => app.live.stats().subscribers === 1);
        // Written behind the API's back: no pg_notify.
        const s = thought(1);
        await sql.query("INSERT INTO sync_steps (mind, seq, step_id, traj, type, json) VALUES ($1, 1, $2, 'root', 'thought', $3)", [m.mind, s.id, s.json]);
        await sql.query("UPDATE sync_minds SET last_seq = 1 WHERE id = $1", [m.mind]);
        expect(seqsOf(await sse.waitFor(1, 5_000))).toEqual([1]);
        await sql.query("UPDATE share_links SET revoked_at = now() WHERE id = $1", [live.id]);
        await sse.waitEnd(5_000);
        expect(seqsOf(sse.events)).toEqual([1, "revoked"]);
      } finally {
        await app.close();
      }
    });

    it("ends the stream of a viewer that stops reading once too much is queued for it (it resumes by reconnecting)", async () => {
      const app = instance(sql, { pollMs: NO_POLL, maxQueuedBytes: 4_000 });
      try {
        const m = await newMind(app);
        const live = await newLink(app, m, "live");
        const res = await follow(app, live.token, { after: 0 });
        await until(() => app.live.stats().subscribers === 1);
        // Nobody reads res.body: each step of ~1.5 kB stays queued.
        for (let n = 1; n <= 4; n++) await upload(app, m, n - 1, [thought(n, "x".repeat(1500))]);
        await until(() => app.live.stats().subscribers === 0);
        const sse = sseReader(res);
        await sse.waitEnd();
        const seen = seqsOf(sse.events);
        expect(seen.length).toBeLessThan(4);
        const resumed = sseReader(await follow(app, live.token, { lastEventId: String(seen.at(-1)) }));
        expect(seqsOf(await resumed.waitFor(4 - seen.length))).toEqual([1, 2, 3, 4].slice(seen.length));
        await resumed.cancel();
      } finally {
        await app.close();
      }
    });

    it("keeps an idle stream open with comment heartbeats", async () => {
      const app = instance(sql, { pollMs: NO_POLL, heartbeatMs: 50 });
      try {
        const m = await newMind(app);
        const live = await newLink(app, m, "live");
        const ac = new AbortController();
        const reader = (await follow(app, live.token, { signal: ac.signal })).body!.getReader();
        let text = "";
        while ((text.match(/: keep-alive\n\n/g) ?? []).length < 2) text += new TextDecoder().decode((await reader.read()).value);
        expect(text.startsWith("retry: 2000\n: following from seq 0\n\n")).toBe(true);
        ac.abort();
        await until(() => app.live.stats().minds === 0);
      } finally {
        await app.close();
      }
    });
  });
}
