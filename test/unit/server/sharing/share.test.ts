// The link half of the sharing API on both engines, through the real route
// handlers: creating, listing and revoking links; what a link may read (a
// snapshot never past its step); that a revoked link is a bare 404
// everywhere; that a read-only link cannot write by any route; invites'
// messages, their rate limit (counted in SQL, so across instances) and the
// mind's inbox.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { INVITE_LIMITS } from "@/lib/sharing/wire";
import type { Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";
import { dump, instance, newLink, newMind, thought, upload, type App } from "../sync/harness";

const NOT_FOUND = { error: { code: "not_found", message: "no such link, or it was revoked" } };

for (const engine of engines) {
  describe.skipIf(engine.skip)(`share links on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let second: Sql;
    let remove: () => Promise<void>;
    let app: App;
    let other: App;
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      // A second server instance: its own connection pool on PostgreSQL (PGlite is one process, one handle).
      second = engine.name === "postgres" ? await db.open() : sql;
      app = instance(sql);
      other = instance(second);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await other?.close();
      if (second !== sql) await second?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    /** A mind with steps 1..n (a child trajectory holds seq 3) and its links. */
    async function mindWithSteps(n: number) {
      const m = await newMind(app, "Ada");
      const steps = Array.from({ length: n }, (_, i) => thought(i + 1, `Thought number ${i + 1}`, i + 1 === 3 ? "child" : "root"));
      await upload(app, m, 0, steps);
      return { m, steps };
    }

    it("creates snapshot, live and invite links, lists them without tokens, and keeps no token in clear", async () => {
      const { m } = await mindWithSteps(5);
      const snapNow = await newLink(app, m, "snapshot", { label: "for Bo" });
      const snapAt = await newLink(app, m, "snapshot", { at_seq: 2 });
      const live = await newLink(app, m, "live");
      const invite = await newLink(app, m, "invite", { at_seq: 1 });
      expect([snapNow.at_seq, snapAt.at_seq, live.at_seq, invite.at_seq]).toEqual([5, 2, null, null]);
      for (const l of [snapNow, snapAt, live, invite]) {
        expect(l.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(l).toMatchObject({ path: `/s/${l.token}` });
      }
      const beyond = await app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind: "snapshot", at_seq: 6 } });
      expect(beyond.status).toBe(400);
      expect((await app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind: "public" } })).status).toBe(400);

      const listed = (await (await app.call("GET", `/api/sync/minds/${m.mind}/links`, { token: m.token })).json()).links;
      expect(listed.map((l: { id: string; kind: string; label: string | null; at_seq: number | null; revoked_at: null; guests: [] }) => [l.id, l.kind, l.label, l.at_seq, l.revoked_at, l.guests])).toEqual([
        [snapNow.id, "snapshot", "for Bo", 5, null, []],
        [snapAt.id, "snapshot", null, 2, null, []],
        [live.id, "live", null, null, null, []],
        [invite.id, "invite", null, null, null, []],
      ]);
      const everything = JSON.stringify(await dump(sql));
      for (const t of [m.token, snapNow.token, snapAt.token, live.token, invite.token]) {
        expect(JSON.stringify(listed)).not.toContain(t);
        expect(everything).not.toContain(t);
      }
    });

    it("never shows a snapshot's reader a step beyond its at_seq, by any read", async () => {
      const { m, steps } = await mindWithSteps(4);
      const snap = await newLink(app, m, "snapshot", { at_seq: 2 });
      const trajectories = [{ traj: "root", name: "Ada", dir: "" }, { traj: "child", name: "a later fork", dir: "abcd1234-later" }];
      await upload(app, m, 4, [thought(5, "Thought number 5")], { trajectories });
      const get = async (path: string) => app.call("GET", `/api/share/${snap.token}${path}`);
      // The fork's first step is seq 3: its name is past the snapshot.
      expect(await (await get("")).json()).toEqual({ kind: "snapshot", role: null, name: "Ada", at_seq: 2, last_seq: 2, trajectories: [trajectories[0]] });
      const seqs = async (path: string) => (await (await get(path)).json()).steps.map((s: { seq: number }) => s.seq);
      expect(await seqs("/steps?after=0")).toEqual([1, 2]);
      expect(await seqs("/steps?before=99")).toEqual([1, 2]);
      expect(await seqs("/steps?after=2")).toEqual([]);
      expect((await (await get("/steps")).json()).last_seq).toBe(2);
      expect(await (await get(`/locate/${steps[1]!.id}`)).json()).toEqual({ seq: 2, traj: "root" });
      expect((await get(`/locate/${steps[3]!.id}`)).status).toBe(404);
      expect(await (await get("/search?q=thought%20number")).json()).toEqual({ hits: [1, 2].map((n) => ({ seq: n, id: steps[n - 1]!.id, traj: "root" })), truncated: false });
      // A snapshot does not move: no event stream.
      expect(await (await get("/events")).json()).toEqual(NOT_FOUND);
    });

    it("reads pages of steps after or before a seq, by trajectory, up to a limit; finds steps; searches", async () => {
      const { m, steps } = await mindWithSteps(6);
      const live = await newLink(app, m, "live");
      const page = async (q: string) => {
        const body = await (await app.call("GET", `/api/share/${live.token}/steps?${q}`)).json();
        return { seqs: body.steps.map((s: { seq: number }) => s.seq), last_seq: body.last_seq };
      };
      expect(await page("after=1&limit=2")).toEqual({ seqs: [2, 3], last_seq: 6 });
      expect(await page("before=6&limit=2")).toEqual({ seqs: [4, 5], last_seq: 6 });
      expect(await page("traj=root&after=0")).toEqual({ seqs: [1, 2, 4, 5, 6], last_seq: 6 });
      expect(await page("traj=child")).toEqual({ seqs: [3], last_seq: 6 });
      const first = (await (await app.call("GET", `/api/share/${live.token}/steps?after=0&limit=1`)).json()).steps[0];
      expect(first).toEqual({ seq: 1, traj: "root", json: steps[0]!.json });
      expect((await app.call("GET", `/api/share/${live.token}/steps?after=-1`)).status).toBe(400);
      expect(await (await app.call("GET", `/api/share/${live.token}/locate/${steps[2]!.id}`)).json()).toEqual({ seq: 3, traj: "child" });
      expect((await app.call("GET", `/api/share/${live.token}/locate/${randomUUID()}`)).status).toBe(404);
      const search = async (q: string) => (await app.call("GET", `/api/share/${live.token}/search?${q}`)).json();
      expect(await search("q=NUMBER%205")).toEqual({ hits: [{ seq: 5, id: steps[4]!.id, traj: "root" }], truncated: false });
      expect(await search("q=number&limit=2")).toEqual({ hits: [1, 2].map((n) => ({ seq: n, id: steps[n - 1]!.id, traj: n === 3 ? "child" : "root" })), truncated: true });
      // LIKE's wildcards are literal text here.
      expect(await search("q=number%20_")).toEqual({ hits: [], truncated: false });
      expect((await app.call("GET", `/api/share/${live.token}/search?q=`)).status).toBe(400);
    });

    it("answers a revoked link, on every share route including events, with the same bare 404 as an unknown one", async () => {
      const { m, steps } = await mindWithSteps(2);
      await app.call("PUT", `/api/sync/minds/${m.mind}/blobs/blobs/a.txt`, { token: m.token, body: "secret output" });
      const links = [await newLink(app, m, "snapshot"), await newLink(app, m, "live"), await newLink(app, m, "invite")];
      const reads = (token: string): [string, string, unknown?][] => [
        ["GET", `/api/share/${token}`],
        ["GET", `/api/share/${token}/steps?after=0`],
        ["GET", `/api/share/${token}/locate/${steps[0]!.id}`],
        ["GET", `/api/share/${token}/search?q=thought`],
        ["GET", `/api/share/${token}/blobs/blobs/a.txt`],
        ["GET", `/api/share/${token}/events?after=0`],
        ["POST", `/api/share/${token}/messages`, { from: "Bo", content: "hello?" }],
      ];
      for (const l of links) expect((await app.call("GET", `/api/share/${l.token}`)).status).toBe(200);
      for (const l of links) expect((await app.call("DELETE", `/api/sync/minds/${m.mind}/links/${l.id}`, { token: m.token })).status).toBe(204);
      const unknown = `${links[0]!.token.slice(0, 42)}${links[0]!.token.endsWith("A") ? "B" : "A"}`;
      for (const token of [...links.map((l) => l.token), unknown, "short"]) {
        for (const [method, path, body] of reads(token)) {
          const res = await app.call(method, path, { body });
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.headers.get("content-type")).toMatch(/^application\/json/);
          expect(await res.json()).toEqual(NOT_FOUND);
        }
      }
      const listed = (await (await app.call("GET", `/api/sync/minds/${m.mind}/links`, { token: m.token })).json()).links;
      expect(listed.every((l: { revoked_at: string | null }) => typeof l.revoked_at === "string")).toBe(true);
      // Another mind's write token cannot revoke this mind's link.
      const stranger = await newMind(app, "Eve");
      const fresh = await newLink(app, m, "live");
      expect((await app.call("DELETE", `/api/sync/minds/${stranger.mind}/links/${fresh.id}`, { token: stranger.token })).status).toBe(404);
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}/links/${fresh.id}`, { token: stranger.token })).status).toBe(401);
      expect((await app.call("GET", `/api/share/${fresh.token}`)).status).toBe(200);
    });

    it("lets a read-only link write by no route: messages 403, sync routes 401, other methods 405, nothing changed", async () => {
      const { m } = await mindWithSteps(2);
      const snap = await newLink(app, m, "snapshot");
      const live = await newLink(app, m, "live");
      const before = await dump(sql);
      for (const l of [snap, live]) {
        const msg = await app.call("POST", `/api/share/${l.token}/messages`, { body: { from: "Bo", content: "let me in" } });
        expect(msg.status).toBe(403);
        expect((await msg.json()).error.code).toBe("read_only");
        // The link token is no write token, whichever sync route it is shown to.
        for (const [method, path, body] of [
          ["GET", `/api/sync/minds/${m.mind}`],
          ["POST", `/api/sync/minds/${m.mind}/steps`, { after: 2, steps: [thought(3)].map(({ seq, traj, json }) => ({ seq, traj, json })) }],
          ["PUT", `/api/sync/minds/${m.mind}/blobs/blobs/x.txt`, "text"],
          ["GET", `/api/sync/minds/${m.mind}/links`],
          ["POST", `/api/sync/minds/${m.mind}/links`, { kind: "invite" }],
          ["DELETE", `/api/sync/minds/${m.mind}/links/${l.id}`],
          ["GET", `/api/sync/minds/${m.mind}/inbox`],
        ] as [string, string, unknown?][]) {
          const res = await app.call(method, path, { token: l.token, body });
          expect(res.status, `${method} ${path}`).toBe(401);
        }
        for (const path of ["", "/steps", `/locate/${randomUUID()}`, "/search", "/blobs/blobs/x.txt", "/events"]) {
          for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
            const res = await app.call(method, `/api/share/${l.token}${path}`, { body: "{}" });
            expect(res.status, `${method} ${path}`).toBe(405);
            expect(res.headers.get("allow")).toBe("GET");
          }
        }
        expect((await app.call("PUT", `/api/share/${l.token}/messages`, { body: "{}" })).status).toBe(405);
      }
      expect(await dump(sql)).toEqual(before);
    });

    it("takes an invite's messages (validated), shows its guests, and rate-limits it across instances with 429 and Retry-After", async () => {
      const { m } = await mindWithSteps(1);
      const invite = await newLink(app, m, "invite");
      const send = (via: App, from: string, content: string) => via.call("POST", `/api/share/${invite.token}/messages`, { body: { from, content } });
      for (const [from, content, why] of [
        ["", "hi", /from/],
        ["Bo\u0007", "hi", /control characters/],
        ["x".repeat(INVITE_LIMITS.nameChars + 1), "hi", /from/],
        ["Bo", "   ", /content/],
        ["Bo", "x".repeat(INVITE_LIMITS.messageChars + 1), /content/],
      ] as const) {
        const res = await send(app, from, content);
        expect(res.status).toBe(400);
        expect((await res.json()).error.message).toMatch(why);
      }
      expect((await app.call("POST", `/api/share/${invite.token}/messages`, { body: "{" })).status).toBe(400);
      const ids: string[] = [];
      for (let i = 0; i < INVITE_LIMITS.perMinute; i++) {
        // Alternate instances: the count lives in the shared database, not in either process.
        const res = await send(i % 2 ? other : app, i < 3 ? "Bo" : "Cy", `message ${i}`);
        expect(res.status).toBe(202);
        const { id } = await res.json();
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        ids.push(id);
      }
      for (const via of [app, other]) {
        const limited = await send(via, "Bo", "one too many");
        expect(limited.status).toBe(429);
        expect((await limited.json()).error.code).toBe("rate_limited");
        const retry = Number(limited.headers.get("retry-after"));
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(60);
      }
      // Another invite of the same mind has its own allowance.
      const second = await newLink(app, m, "invite");
      expect((await app.call("POST", `/api/share/${second.token}/messages`, { body: { from: "Di", content: "hi" } })).status).toBe(202);

      const listed = (await (await app.call("GET", `/api/sync/minds/${m.mind}/links`, { token: m.token })).json()).links;
      const guests = listed.find((l: { id: string }) => l.id === invite.id).guests;
      expect(guests.map((g: { name: string; messages: number }) => [g.name, g.messages]).sort()).toEqual([["Bo", 3], ["Cy", 7]]);
      expect(guests.every((g: { last_at: string }) => !Number.isNaN(Date.parse(g.last_at)))).toBe(true);
      expect(listed.find((l: { id: string }) => l.id === second.id).guests.map((g: { name: string }) => g.name)).toEqual(["Di"]);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("queues guests' messages in the inbox until a step with the message's id is uploaded", async () => {
      const { m } = await mindWithSteps(1);
      const invite = await newLink(app, m, "invite");
      const sent = [];
      for (const content of ["hello", "are you there?"]) {
        const res = await app.call("POST", `/api/share/${invite.token}/messages`, { body: { from: " Bo ", content } });
        sent.push((await res.json()).id as string);
      }
      const inbox = async () => (await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()).messages;
      const first = await inbox();
      expect(first.map((x: { id: string; from: string; content: string; link: string }) => [x.id, x.from, x.content, x.link])).toEqual([
        [sent[0], "Bo", "hello", invite.id],
        [sent[1], "Bo", "are you there?", invite.id],
      ]);
      // Fetched twice before delivery (a runner that crashed): still there, still once each.
      expect(await inbox()).toEqual(first);
      const asStep = (seq: number, id: string, content: string) => ({
        seq,
        traj: "root",
        json: JSON.stringify({ type: "message", step_id: id, ts: new Date().toISOString(), source: "invite", from: "Bo", to: "Ada", content }),
      });
      expect(await (await upload(app, m, 1, [asStep(2, sent[0]!, "hello")])).json()).toMatchObject({ last_seq: 2, added: 1, skipped: 0 });
      expect((await inbox()).map((x: { id: string }) => x.id)).toEqual([sent[1]]);
      // Delivered again after a crash between upload and its answer: skipped, not doubled.
      expect(await (await upload(app, m, 1, [asStep(2, sent[0]!, "hello"), asStep(3, sent[1]!, "are you there?")])).json()).toMatchObject({ last_seq: 3, added: 1, skipped: 1 });
      expect(await inbox()).toEqual([]);
      expect((await app.call("GET", `/api/sync/minds/${m.mind}/inbox`)).status).toBe(401);
    });
  });
}

describe("a database that cannot be opened", () => {
  const HOLDER = Symbol.for("reverie.serverSql");
  const saved = process.env.DATABASE_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    delete (globalThis as Record<symbol, unknown>)[HOLDER];
    vi.restoreAllMocks();
  });

  it("answers 503 on sync and share routes, and says why without the address", async () => {
    delete (globalThis as Record<symbol, unknown>)[HOLDER];
    // Port 1 on loopback: nothing listens, so the connection is refused at once.
    process.env.DATABASE_URL = "postgres://reverie:hunter2@127.0.0.1:1/none";
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.resetModules();
    const rt = await import("@/lib/server/sharing/runtime");
    const token = "A".repeat(43);
    for (const res of [
      await rt.mindsRoute.POST(new Request("http://app.test/api/sync/minds", { method: "POST", body: JSON.stringify({ name: "Ada" }) }), { params: Promise.resolve({}) }),
      await rt.sharedRoute.GET(new Request(`http://app.test/api/share/${token}`), { params: Promise.resolve({ token }) }),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe("unavailable");
      expect(text).not.toMatch(/hunter2|127\.0\.0\.1/);
    }
  });
});
