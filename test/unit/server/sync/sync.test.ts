// The sync half of the sharing API on both engines, through the real route
// handlers: a mind's first sync, append-only idempotent uploads, the gap and
// conflict rules, resuming after being offline, and refused uploads (4xx)
// that leave the database exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYNC_LIMITS } from "@/lib/sync/wire";
import type { Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";
import { dump, instance, newLink, newMind, ORIGIN, thought, upload, wire, type App } from "./harness";

for (const engine of engines) {
  describe.skipIf(engine.skip)(`sync on ${engine.name}`, { timeout: 120_000 }, () => {
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

    const state = async (m: { mind: string; token: string }) => (await app.call("GET", `/api/sync/minds/${m.mind}`, { token: m.token })).json();
    const heldSeqs = async (mind: string) => (await sql.query<{ seq: string | number }>("SELECT seq FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind])).map((r) => Number(r.seq));

    it("creates a mind with a write token; its state needs that token", async () => {
      const m = await newMind(app, "Ada");
      expect(m.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await state(m)).toEqual({
        mind: m.mind,
        name: "Ada",
        last_seq: 0,
        steps: 0,
        quota: { bytes: 0, max_bytes: 256 * 1024 * 1024, steps: 0, max_steps: 1_000_000, blobs: 0, max_blobs: 100_000 },
        home: { keep_alive: false, halted: false, lease: null },
      });
      const other = await newMind(app, "Bo");
      for (const token of [undefined, other.token, `${m.token.slice(0, 42)}x`, "not-a-token"]) {
        const res = await app.call("GET", `/api/sync/minds/${m.mind}`, { token });
        expect(res.status).toBe(401);
        expect((await res.json()).error.code).toBe("unauthorized");
      }
      // An unknown mind is refused like a wrong token: a write token is what proves a mind exists.
      expect((await app.call("GET", "/api/sync/minds/no-such-mind", { token: m.token })).status).toBe(401);
      expect((await app.call("POST", "/api/sync/minds", { body: { name: "" } })).status).toBe(400);
    });

    it("is idempotent: the same batch twice is stored once, and the second answers what it skipped", async () => {
      const m = await newMind(app);
      const batch = [thought(1), thought(2), thought(3)];
      const first = await upload(app, m, 0, batch);
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ last_seq: 3, added: 3, skipped: 0 });
      const again = await upload(app, m, 0, batch);
      expect(await again.json()).toMatchObject({ last_seq: 3, added: 0, skipped: 3 });
      expect(await state(m)).toMatchObject({ last_seq: 3, steps: 3 });
      const rows = await sql.query<{ seq: string; step_id: string; traj: string; type: string; json: string }>("SELECT seq, step_id, traj, type, json FROM sync_steps WHERE mind = $1 ORDER BY seq", [m.mind]);
      expect(rows.map((r) => ({ seq: Number(r.seq), step_id: r.step_id, traj: r.traj, type: r.type, json: r.json }))).toEqual(batch.map((s) => ({ seq: s.seq, step_id: s.id, traj: "root", type: "thought", json: s.json })));
    });

    it("takes an overlapping batch: the steps it holds are skipped, the new ones appended", async () => {
      const m = await newMind(app);
      const all = [thought(2), thought(5), thought(9), thought(10)];
      await upload(app, m, 0, all.slice(0, 2));
      const res = await upload(app, m, 1, all);
      expect(await res.json()).toMatchObject({ last_seq: 10, added: 2, skipped: 2 });
      expect(await heldSeqs(m.mind)).toEqual([2, 5, 9, 10]);
    });

    it("refuses an out-of-order batch (a gap) with 409 and last_seq, writes nothing, then takes the resend from last_seq", async () => {
      const m = await newMind(app);
      const steps = [1, 2, 3, 4, 5, 6].map((n) => thought(n));
      await upload(app, m, 0, steps.slice(0, 2));
      const before = await dump(sql);
      const gap = await upload(app, m, 4, steps.slice(4), { trajectories: [{ traj: "root", name: "Ada", dir: "" }] });
      expect(gap.status).toBe(409);
      expect((await gap.json()).error).toMatchObject({ code: "gap", last_seq: 2 });
      expect(await dump(sql)).toEqual(before);
      const resend = await upload(app, m, 2, steps.slice(2));
      expect(await resend.json()).toMatchObject({ last_seq: 6, added: 4, skipped: 0 });
      expect(await heldSeqs(m.mind)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("resumes after being offline: a lost upload is resent from the server's last_seq, a lost answer is resent and skipped", async () => {
      const m = await newMind(app);
      const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => thought(n));
      await upload(app, m, 0, steps.slice(0, 3));
      // Offline: the batch 4..5 never reached the server; the browser wrote 6..7 meanwhile.
      // Back online it asks where to resume and sends everything after that.
      const { last_seq } = await state(m);
      expect(last_seq).toBe(3);
      expect(await (await upload(app, m, last_seq, steps.slice(3, 5))).json()).toMatchObject({ last_seq: 5, added: 2, skipped: 0 });
      // The answer to that upload was lost: the browser resends it together with what followed.
      expect(await (await upload(app, m, 3, steps.slice(3))).json()).toMatchObject({ last_seq: 7, added: 2, skipped: 2 });
      expect(await heldSeqs(m.mind)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it("refuses conflicts with 409 and writes nothing: a different step at a held seq, or a held step at a new seq", async () => {
      const m = await newMind(app);
      const [a, b] = [thought(1), thought(2)];
      await upload(app, m, 0, [a, b]);
      const before = await dump(sql);
      for (const batch of [[thought(2), thought(3)], [thought(3), { ...a, seq: 4 }]]) {
        const res = await upload(app, m, 1, batch);
        expect(res.status).toBe(409);
        expect((await res.json()).error.code).toBe("conflict");
        expect(await dump(sql)).toEqual(before);
      }
    });

    it("refuses malformed uploads with 400 naming the fault, and changes nothing", async () => {
      const m = await newMind(app);
      await upload(app, m, 0, [thought(1)]);
      const before = await dump(sql);
      const noId = JSON.stringify({ type: "thought", ts: "2026-12-01T00:00:00.000Z", content: "x" });
      const badKnown = JSON.stringify({ type: "thought", step_id: thought(9).id, ts: "2026-12-01T00:00:00.000Z" });
      const t = thought(3);
      const cases: [unknown, RegExp][] = [
        ["{not json", /not JSON/],
        [{ steps: [] }, /after/],
        [{ after: 1, steps: [{ seq: 0, traj: "root", json: thought(2).json }] }, /steps\.0\.seq/],
        [{ after: 1, steps: [{ seq: 2, json: thought(2).json }] }, /steps\.0\.traj/],
        [{ after: 1, steps: [{ seq: 2, traj: "root", json: "{oops" }] }, /json is not JSON/],
        [{ after: 1, steps: [{ seq: 2, traj: "root", json: noId }] }, /not a step: step_id/],
        [{ after: 1, steps: [{ seq: 2, traj: "root", json: badKnown }] }, /not a step: thought: content/],
        [{ after: 1, steps: [wire(thought(3)), wire(thought(2))] }, /seq 2 does not follow 3/],
        [{ after: 1, steps: [wire(thought(1))] }, /seq 1 does not follow 1/],
        [{ after: 1, steps: [wire(t), { ...wire(t), seq: 4 }] }, /appears twice/],
      ];
      for (const [body, message] of cases) {
        const res = await app.call("POST", `/api/sync/minds/${m.mind}/steps`, { token: m.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await res.json()).error.message).toMatch(message);
      }
      expect(await dump(sql)).toEqual(before);
    });

    it("refuses oversize uploads with 413, by Content-Length and by the bytes that actually arrive, and changes nothing", async () => {
      const m = await newMind(app);
      await upload(app, m, 0, [thought(1)]);
      const before = await dump(sql);
      const url = `${ORIGIN}/api/sync/minds/${m.mind}/steps`;
      const auth = { authorization: `Bearer ${m.token}` };
      const declared = await app.fetch(new Request(url, { method: "POST", headers: { ...auth, "content-length": String(SYNC_LIMITS.batchBytes + 1) }, body: "{}" }));
      expect(declared.status).toBe(413);
      // No Content-Length (a chunked body): refused once the cap is passed, without reading the rest.
      let pulled = 0;
      const chunk = new Uint8Array(64 * 1024).fill(32);
      const endless = new ReadableStream<Uint8Array>({
        pull(c) {
          pulled += chunk.byteLength;
          c.enqueue(chunk);
        },
      });
      const streamed = await app.fetch(new Request(url, { method: "POST", headers: auth, body: endless, duplex: "half" } as RequestInit));
      expect(streamed.status).toBe(413);
      expect(pulled).toBeLessThan(SYNC_LIMITS.batchBytes + 4 * chunk.byteLength);
      const big = thought(2, "x".repeat(SYNC_LIMITS.stepBytes));
      const oneBigStep = await upload(app, m, 1, [big]);
      expect(oneBigStep.status).toBe(413);
      expect((await oneBigStep.json()).error.message).toMatch(/step 0 \(seq 2\) is over/);
      const many = Array.from({ length: SYNC_LIMITS.batchSteps + 1 }, (_, i) => thought(i + 2, "."));
      const tooMany = await upload(app, m, 1, many);
      expect(tooMany.status).toBe(413);
      expect((await tooMany.json()).error.code).toBe("too_large");
      const blob = await app.fetch(new Request(`${ORIGIN}/api/sync/minds/${m.mind}/blobs/blobs/big.txt`, { method: "PUT", headers: auth, body: "y".repeat(SYNC_LIMITS.blobBytes + 1) }));
      expect(blob.status).toBe(413);
      expect(await dump(sql)).toEqual(before);
    });

    it("stores blobs once: the same text again is fine, other text under the name is 409, bad names are 400", async () => {
      const m = await newMind(app);
      const put = (name: string, body: string, token = m.token) => app.call("PUT", `/api/sync/minds/${m.mind}/blobs/${name}`, { token, body });
      expect((await put("blobs/out-1.txt", "whole output")).status).toBe(204);
      expect((await put("blobs/out-1.txt", "whole output")).status).toBe(204);
      const changed = await put("blobs/out-1.txt", "something else");
      expect(changed.status).toBe(409);
      // (A literal ../ never arrives: URLs resolve it. An encoded one does.)
      for (const bad of ["a%2F..%2Fb", "a%00b"]) expect((await put(bad, "x")).status, bad).toBe(400);
      expect((await put("blobs/x.txt", "x", "wrong")).status).toBe(401);
      const link = await newLink(app, m, "live");
      const read = await app.call("GET", `/api/share/${link.token}/blobs/blobs/out-1.txt`);
      expect(read.status).toBe(200);
      expect(read.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(await read.text()).toBe("whole output");
      expect((await app.call("GET", `/api/share/${link.token}/blobs/blobs/none.txt`)).status).toBe(404);
    });

    it("keeps trajectories from uploads (latest name wins) and shows them through a link", async () => {
      const m = await newMind(app, "Ada");
      const child = thought(2, "child", "c1");
      await upload(app, m, 0, [thought(1), child], { trajectories: [{ traj: "root", name: "Ada", dir: "" }, { traj: "c1", name: "side quest", dir: "1234abcd-side-quest", parent_traj: "root", parent_step: child.id }] });
      await upload(app, m, 2, [], { trajectories: [{ traj: "root", name: "Ada Lovelace", dir: "" }] });
      const link = await newLink(app, m, "live");
      expect(await (await app.call("GET", `/api/share/${link.token}`)).json()).toEqual({
        kind: "live",
        role: null,
        name: "Ada",
        at_seq: null,
        last_seq: 2,
        trajectories: [
          { traj: "root", name: "Ada Lovelace", dir: "" },
          { traj: "c1", name: "side quest", dir: "1234abcd-side-quest", parent_traj: "root", parent_step: child.id },
        ],
      });
    });

    it("answers 405 with Allow for a method a sync route lacks", async () => {
      const m = await newMind(app);
      for (const [method, path, allow] of [
        ["GET", "/api/sync/minds", "POST"],
        ["PATCH", `/api/sync/minds/${m.mind}`, "GET, DELETE"],
        ["PUT", `/api/sync/minds/${m.mind}/steps`, "GET, POST"],
        ["DELETE", `/api/sync/minds/${m.mind}/links`, "GET, POST"],
        ["POST", `/api/sync/minds/${m.mind}/inbox`, "GET"],
      ] as const) {
        const res = await app.call(method, path, { token: m.token });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("allow")).toBe(allow);
        expect((await res.json()).error.code).toBe("method_not_allowed");
      }
    });
  });
}
