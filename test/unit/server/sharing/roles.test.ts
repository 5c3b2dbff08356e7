// Roles on both engines, through the real route handlers: every /api/share
// route against every kind of link holder (snapshot, live, and an invite as
// guest, member and operator), checked against one expected table; what a
// guest reads (the conversation, by every read); operators' pause, resume and
// stop, their queue in the inbox and the rules that keep a stopped mind
// stopped; operators' changes to the mind's memory, queued for its home, and
// what they read of it; what an operator reads of the mind's spend; and that
// a refused request changes nothing.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_LIMITS, INVITE_LIMITS } from "@/lib/sharing/wire";
import type { Sql } from "@/lib/server/db/sql";
import { sharingFetch, sharingRoutes, type RunnerHooks } from "@/lib/server/sharing/routes";
import { shareClient } from "@/lib/sharing/client";
import { engines } from "../databases";
import { dump, instance, newLink, newMind, ORIGIN, sseReader, thought, upload, type App } from "../sync/harness";

type HolderName = "snapshot" | "live" | "guest" | "member" | "operator" | "alert";
const HOLDERS: HolderName[] = ["snapshot", "live", "guest", "member", "operator", "alert"];
const F: [number, string] = [403, "forbidden"];

/** What each holder gets from each route: the status, and for a refusal its code. */
const EXPECTED: Record<string, Record<HolderName, number | [number, string]>> = {
  "GET ": { snapshot: 200, live: 200, guest: 200, member: 200, operator: 200, alert: F },
  "GET /steps": { snapshot: 200, live: 200, guest: 200, member: 200, operator: 200, alert: F },
  "GET /locate/<thought>": { snapshot: 200, live: 200, guest: [404, "not_found"], member: 200, operator: 200, alert: F },
  "GET /locate/<message>": { snapshot: 200, live: 200, guest: 200, member: 200, operator: 200, alert: F },
  "GET /search": { snapshot: 200, live: 200, guest: 200, member: 200, operator: 200, alert: F },
  "GET /blobs/blobs/out.txt": { snapshot: 200, live: 200, guest: F, member: 200, operator: 200, alert: F },
  "GET /events": { snapshot: [404, "not_found"], live: 200, guest: 200, member: 200, operator: 200, alert: F },
  "POST /messages": { snapshot: [403, "read_only"], live: [403, "read_only"], guest: 202, member: 202, operator: 202, alert: [403, "read_only"] },
  "POST /control": { snapshot: F, live: F, guest: F, member: F, operator: 202, alert: F },
  "GET /usage": { snapshot: F, live: F, guest: F, member: F, operator: 200, alert: F },
  "GET /memory": { snapshot: F, live: F, guest: F, member: F, operator: 200, alert: F },
  "POST /memory": { snapshot: F, live: F, guest: F, member: F, operator: 202, alert: F },
  "POST /alerts": { snapshot: F, live: F, guest: F, member: F, operator: F, alert: 202 },
};

function message(seq: number, from: string, content: string) {
  const id = randomUUID();
  return { seq, traj: "root", id, json: JSON.stringify({ type: "message", step_id: id, ts: new Date(Date.UTC(2026, 11, 1, 0, 0, seq)).toISOString(), source: "chat", from, to: "Ada", content }) };
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`roles on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    /** What the routes asked of the server's runner (a recorder in its place): which mind to wake, now or by when. */
    const wakes: { mind: string; by?: number }[] = [];
    const woken: RunnerHooks = {
      leaseChanged: async () => undefined,
      guestMessage: async (_sql, mind) => void wakes.push({ mind }),
      wakeBy: async (_sql, mind, at) => void wakes.push({ mind, by: at.getTime() }),
    };
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql, { pollMs: 200, runner: woken });
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    /** A mind whose steps are a thought, a person's message (the word "garden" in both) and a thought, a blob, and one link per holder. */
    async function sharedMind() {
      const m = await newMind(app, "Ada");
      const steps = [thought(1, "The garden needs water."), message(2, "Bo", "How is the garden?"), thought(3, "Bo asked about the garden.")];
      expect((await upload(app, m, 0, steps)).status).toBe(200);
      expect((await app.call("PUT", `/api/sync/minds/${m.mind}/blobs/blobs/out.txt`, { token: m.token, body: "a long output" })).status).toBe(204);
      const links = {} as Record<HolderName, { id: string; token: string; role: string | null }>;
      links.snapshot = await newLink(app, m, "snapshot");
      links.live = await newLink(app, m, "live");
      for (const role of ["guest", "member", "operator"] as const) links[role] = await newLink(app, m, "invite", { role });
      links.alert = await newLink(app, m, "alert", { label: "CI" });
      return { m, steps, links };
    }

    it("answers every share route for every holder as the one table says, and a refusal changes nothing", async () => {
      const { m, steps, links } = await sharedMind();
      const got: Record<string, Record<HolderName, number | [number, string]>> = {};
      for (const route of Object.keys(EXPECTED)) {
        got[route] = {} as Record<HolderName, number | [number, string]>;
        for (const h of HOLDERS) {
          const [method, rawPath] = route.split(" ") as [string, string];
          const path = rawPath.replace("<thought>", steps[0]!.id).replace("<message>", steps[1]!.id) + (rawPath === "/search" ? "?q=garden" : "");
          const body =
            rawPath === "/messages" ? { from: "Cy", content: `hello from a ${h}` } : rawPath === "/control" ? { action: "pause", from: "Cy" } : route === "POST /memory" ? { what: "goal", op: "add", text: `water (${h})` } : rawPath === "/alerts" ? { title: `build failed (${h})` } : undefined;
          const abort = new AbortController();
          const before = method === "POST" ? await dump(sql) : undefined;
          const res = await app.call(method, `/api/share/${links[h].token}${path}`, { body, signal: abort.signal });
          if (res.status < 300) got[route][h] = res.status;
          else {
            got[route][h] = [res.status, ((await res.json()) as { error: { code: string } }).error.code];
            // Refused: not a row changed.
            if (before) expect(await dump(sql), `${route} as ${h}`).toEqual(before);
          }
          abort.abort();
          await res.body?.cancel().catch(() => undefined);
          // The operator paused it: resume, so the next holder finds it as it was.
          if (rawPath === "/control" && res.status === 202) expect((await app.call("POST", `/api/share/${links[h].token}/control`, { body: { action: "resume" } })).status).toBe(202);
        }
      }
      expect(got).toEqual(EXPECTED);
      // And the links say what they are.
      const listed = (await (await app.call("GET", `/api/sync/minds/${m.mind}/links`, { token: m.token })).json()).links as { id: string; role: string | null }[];
      expect(HOLDERS.map((h) => listed.find((l) => l.id === links[h].id)?.role)).toEqual([null, null, "guest", "member", "operator", null]);
      expect(HOLDERS.map((h) => links[h].role)).toEqual([null, null, "guest", "member", "operator", null]);
      for (const h of HOLDERS.filter((x) => x !== "alert")) expect((await (await app.call("GET", `/api/share/${links[h].token}`)).json()).role).toBe(links[h].role);
    });

    it("shows a guest the conversation and nothing else, by every read and on the live stream", async () => {
      const { m, steps, links } = await sharedMind();
      const guest = links.guest.token;
      const seqs = async (path: string) => ((await (await app.call("GET", `/api/share/${guest}${path}`)).json()).steps as { seq: number }[]).map((s) => s.seq);
      expect(await seqs("/steps")).toEqual([2]);
      expect(await seqs("/steps?before=99")).toEqual([2]);
      expect(await seqs("/steps?traj=root&after=0")).toEqual([2]);
      expect(((await (await app.call("GET", `/api/share/${guest}/search?q=garden`)).json()).hits as { id: string }[]).map((h) => h.id)).toEqual([steps[1]!.id]);
      // A member reads all three.
      expect(((await (await app.call("GET", `/api/share/${links.member.token}/steps`)).json()).steps as unknown[]).length).toBe(3);

      const res = await app.call("GET", `/api/share/${guest}/events?after=0`);
      const stream = sseReader(res);
      await stream.waitFor(1);
      // Live: a thought, then the mind's reply to Bo; the guest's stream carries only the reply.
      await upload(app, m, 3, [thought(4, "Time to answer Bo."), message(5, "Ada", "The garden is fine.")]);
      const [first, second] = await stream.waitFor(2);
      await stream.cancel();
      expect([first, second].map((e) => JSON.parse(e!.data).seq)).toEqual([2, 5]);
      expect(stream.events.every((e) => JSON.parse(e.data).json.includes('"type":"message"'))).toBe(true);
    });

    it("queues an operator's pause, resume and stop for the mind's home, halts it on the server, and keeps a stopped mind stopped", async () => {
      const { m, links } = await sharedMind();
      const op = links.operator.token;
      const control = (action: string, from?: string) => app.call("POST", `/api/share/${op}/control`, { body: { action, ...(from ? { from } : {}) } });
      const flags = async () => (await sql.query<{ halted: boolean; paused_by: string | null }>("SELECT halted_at IS NOT NULL AS halted, paused_by FROM sync_minds WHERE id = $1", [m.mind]))[0];
      const inbox = async () => (await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()) as { messages: unknown[]; controls: { id: string; from: string; action: string; link: string }[] };

      for (const bad of [{}, { action: "reboot" }, { action: "pause", from: "Bo\u0007" }]) expect((await app.call("POST", `/api/share/${op}/control`, { body: bad })).status).toBe(400);
      const paused = await control("pause", " Cy ");
      expect(paused.status).toBe(202);
      const { id: pauseId } = await paused.json();
      expect(await flags()).toEqual({ halted: true, paused_by: "Cy" });
      expect((await control("resume")).status).toBe(202);
      expect(await flags()).toEqual({ halted: false, paused_by: null });
      expect((await control("stop", "Cy")).status).toBe(202);
      expect(await flags()).toEqual({ halted: true, paused_by: null });
      // Stopped, not paused: only its owner starts it again.
      for (const action of ["resume", "pause"]) {
        const refused = await control(action);
        expect(refused.status).toBe(409);
        expect((await refused.json()).error.code).toBe("stopped");
      }
      expect((await inbox()).controls.map((c) => [c.from, c.action, c.link])).toEqual([
        ["Cy", "pause", links.operator.id],
        ["an operator", "resume", links.operator.id],
        ["Cy", "stop", links.operator.id],
      ]);
      // The owner's Start (the halt route) ends the stop; an operator may pause it again.
      expect((await app.call("POST", `/api/sync/minds/${m.mind}/halt`, { token: m.token, body: { halted: false } })).status).toBeLessThan(500);
      await sql.query("UPDATE sync_minds SET halted_at = NULL, paused_by = NULL WHERE id = $1", [m.mind]);
      expect((await control("pause", "Cy")).status).toBe(202);
      // A request is delivered once a step with its id is uploaded.
      const recorded = { seq: 4, traj: "root", json: JSON.stringify({ type: "observation", step_id: pauseId, ts: new Date().toISOString(), source: "control", content: "Cy (operator) paused you" }) };
      expect((await upload(app, m, 3, [recorded])).status).toBe(200);
      expect((await inbox()).controls.map((c) => c.id)).not.toContain(pauseId);
      expect((await inbox()).controls).toHaveLength(3);
    });

    it("queues an operator's change to the mind's memory for its home, reads the memory as the synced workspace has it, and limits the changes", async () => {
      const { m, links } = await sharedMind();
      const op = links.operator.token;
      const b64 = (t: string) => Buffer.from(t).toString("base64");
      const put = (path: string, text: string) => ({ path, kind: "file", data_b64: b64(text), mode: 0o644, mtime: Date.UTC(2026, 11, 5), base_version: null });
      const written = await app.call("POST", `/api/sync/minds/${m.mind}/files`, {
        token: m.token,
        body: {
          put: [
            { path: "/workspace", kind: "dir", mode: 0o755, mtime: 1, base_version: null },
            { path: "/workspace/memory", kind: "dir", mode: 0o755, mtime: 1, base_version: null },
            put("/workspace/memory/garden.md", "---\nid: garden\ncreated: 2026-12-01T08:00:00.000Z\ntags: [home]\n---\nwater the tomatoes\n"),
            put("/workspace/memory/notes/deep.md", "not a memory: a folder below"),
            put("/workspace/focus.md", "# Goals\n- [ ] 1a2b ship the report\n- [x] 3c4d call Bo (done 2026-12-02)\n"),
          ],
          remove: [],
        },
      });
      expect(written.status).toBe(200);
      const memory = async () => (await (await app.call("GET", `/api/share/${op}/memory`)).json()) as { goals: unknown[]; memories: unknown[]; pending: { id: string; by: string; role: string; op: string; target?: string; text?: string }[] };
      expect(await memory()).toEqual({
        goals: [
          { line: 1, id: "1a2b", done: false, goal: "ship the report" },
          { line: 2, id: "3c4d", done: true, goal: "call Bo (done 2026-12-02)" },
        ],
        memories: [{ id: "garden", created: "2026-12-01T08:00:00.000Z", tags: ["home"], text: "water the tomatoes\n" }],
        pending: [],
      });

      for (const bad of [{}, { what: "memory", op: "add" }, { what: "memory", op: "edit", text: "x" }, { what: "memory", op: "forget", target: "../x" }, { what: "goal", op: "done", target: "1a2b", from: "Cy\u0007" }]) {
        const before = await dump(sql);
        expect((await app.call("POST", `/api/share/${op}/memory`, { body: bad })).status).toBe(400);
        expect(await dump(sql)).toEqual(before);
      }
      const huge = await app.call("POST", `/api/share/${op}/memory`, { body: { what: "memory", op: "add", text: "x".repeat(70 * 1024) } });
      expect(huge.status).toBe(413);

      const edit = await app.call("POST", `/api/share/${op}/memory`, { body: { what: "memory", op: "edit", target: "garden", text: "water the tomatoes at dawn", from: " Cy " } });
      expect(edit.status).toBe(202);
      const { id } = (await edit.json()) as { id: string };
      const done = await app.call("POST", `/api/share/${op}/memory`, { body: { what: "goal", op: "done", target: "1a2b" } });
      expect(done.status).toBe(202);
      // Waiting, on the operator's page and in the inbox the mind's home reads (oldest first; an unnamed operator is no name).
      expect((await memory()).pending.map((p) => [p.id === id, p.by, p.role, p.op, p.target])).toEqual([
        [true, "Cy", "operator", "edit", "garden"],
        [false, "", "operator", "done", "1a2b"],
      ]);
      const inbox = async () => ((await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()) as { curations: { id: string; text?: string; link: string }[] }).curations;
      expect((await inbox()).map((c) => [c.id === id, c.text, c.link])).toEqual([
        [true, "water the tomatoes at dawn", links.operator.id],
        [false, undefined, links.operator.id],
      ]);
      // Once the home uploads the step with the request's id, it no longer waits.
      const step = { type: "observation", step_id: id, ts: new Date(Date.UTC(2026, 11, 5, 1)).toISOString(), source: "curation", by: "Cy", role: "operator", what: "memory", op: "edit", target: "garden", content: "Cy (operator) edited your memory garden." };
      expect((await upload(app, m, 3, [{ seq: 4, traj: "root", json: JSON.stringify(step) }])).status).toBe(200);
      expect((await inbox()).map((c) => c.id)).not.toContain(id);
      expect((await memory()).pending).toHaveLength(1);

      // Changes are limited as messages are: the minute's quota, then 429 with when to try again.
      for (let i = 2; i < INVITE_LIMITS.perMinute; i++) expect((await app.call("POST", `/api/share/${op}/memory`, { body: { what: "goal", op: "add", text: `goal ${i}` } })).status).toBe(202);
      const limited = await app.call("POST", `/api/share/${op}/memory`, { body: { what: "goal", op: "add", text: "one too many" } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // A revoked invite changes nothing more.
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}/links/${links.operator.id}`, { token: m.token })).status).toBe(204);
      expect((await app.call("POST", `/api/share/${op}/memory`, { body: { what: "goal", op: "add", text: "late" } })).status).toBe(404);
    });

    it("rate-limits an operator's control requests like messages, and tags each message in the inbox with its sender's role", async () => {
      const { m, links } = await sharedMind();
      for (let i = 0; i < INVITE_LIMITS.perMinute; i++) expect((await app.call("POST", `/api/share/${links.operator.token}/control`, { body: { action: i % 2 ? "resume" : "pause" } })).status).toBe(202);
      const limited = await app.call("POST", `/api/share/${links.operator.token}/control`, { body: { action: "pause" } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

      for (const h of ["guest", "member", "operator"] as const) await app.call("POST", `/api/share/${links[h].token}/messages`, { body: { from: `${h} Bo`, content: "hi" } });
      const inbox = (await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()) as { messages: { from: string; role: string }[] };
      expect(inbox.messages.map((x) => [x.from, x.role])).toEqual([
        ["guest Bo", "guest"],
        ["member Bo", "member"],
        ["operator Bo", "operator"],
      ]);
      // A role belongs to invites only.
      for (const kind of ["snapshot", "live"]) expect((await app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind, role: "operator" } })).status).toBe(400);
      expect((await app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind: "invite", role: "owner" } })).status).toBe(400);
      // An invite made before roles (no role in its row) is a member's.
      const old = await newLink(app, m, "invite");
      expect(old.role).toBe("member");
      await sql.query("UPDATE share_links SET role = NULL WHERE id = $1", [old.id]);
      expect((await (await app.call("GET", `/api/share/${old.token}`)).json()).role).toBe("member");
      expect((await app.call("POST", `/api/share/${old.token}/control`, { body: { action: "pause" } })).status).toBe(403);
    });

    it("shows an operator what the mind spent, summed from the usage its synced steps record, against the caps its synced settings hold", async () => {
      const { m, links } = await sharedMind();
      // The server's clock fixed at 10:30 UTC, so every call below falls in a known hour and day.
      const NOW = Date.UTC(2026, 11, 2, 10, 30);
      const fetch = sharingFetch(sharingRoutes(async () => ({ sql, live: app.live, now: () => NOW })));
      const operator = shareClient((input, init) => fetch(new Request(input, init)), links.operator.token, ORIGIN);
      const call = (seq: number, type: string, at: string, usage: Record<string, number> | null, extra: Record<string, unknown> = {}) => {
        const id = randomUUID();
        return { seq, traj: "root", id, json: JSON.stringify({ type, step_id: id, ts: at, source: "inner", content: `call ${seq}`, ...(usage ? { usage } : {}), ...extra }) };
      };
      // Dollars that add up exactly in binary, so the sums are compared whole.
      const steps = [
        call(4, "thought", "2026-12-02T10:20:00.000Z", { input_tokens: 1000, cached_input_tokens: 200, output_tokens: 50, usd: 0.25 }),
        call(5, "observation", "2026-12-02T10:05:00.000Z", { input_tokens: 500, output_tokens: 20, usd: 0.125 }, { decision: "replied" }),
        // A call its price table could not price: counted, at no cost.
        call(6, "thought", "2026-12-02T10:01:00.000Z", { input_tokens: 10, output_tokens: 5 }),
        call(7, "reasoning", "2026-12-02T09:45:00.000Z", { input_tokens: 2000, output_tokens: 100, usd: 0.5 }, { thought: "t", cmd: "ls" }),
        call(8, "error", "2026-12-02T09:10:00.000Z", { input_tokens: 100, output_tokens: 0, usd: 0.0625 }, { reason: "stall" }),
        call(9, "thought", "2026-12-01T23:00:00.000Z", { input_tokens: 4000, output_tokens: 400, usd: 1 }),
        call(10, "thought", "2026-11-10T12:00:00.000Z", { input_tokens: 8000, output_tokens: 800, usd: 2 }),
        // Older than the 30 days: left out.
        call(11, "thought", "2026-10-01T12:00:00.000Z", { input_tokens: 9000, output_tokens: 900, usd: 4 }),
        // No model call: a thought without usage, a message that says "usage".
        call(12, "thought", "2026-12-02T10:10:00.000Z", null),
        call(13, "message", "2026-12-02T10:11:00.000Z", null, { from: "Bo", to: "Ada", content: 'what is your "usage"?' }),
      ];
      expect((await upload(app, m, 3, steps)).status).toBe(200);

      const nonZero = (buckets: { start: number; calls: number }[]) => buckets.filter((b) => b.calls > 0).map((b) => ({ ...b, start: new Date(b.start).toISOString() }));
      const got = await operator.usage();
      expect({ ...got, hour: { bucket: got.hour.bucket, count: got.hour.buckets.length, first: got.hour.buckets[0]?.start, busy: nonZero(got.hour.buckets) }, day: { bucket: got.day.bucket, count: got.day.buckets.length, first: got.day.buckets[0]?.start, busy: nonZero(got.day.buckets) } }).toEqual({
        now: NOW,
        // No settings synced yet: no caps known.
        caps: null,
        hour_usd: 0.375,
        day_usd: 0.9375,
        // Since 09:30.
        burn_usd_per_hour: 0.875,
        hour: {
          bucket: "hour",
          count: 48,
          first: Date.UTC(2026, 10, 30, 11),
          busy: [
            { start: "2026-12-01T23:00:00.000Z", calls: 1, inputTokens: 4000, cachedInputTokens: 0, outputTokens: 400, usd: 1 },
            { start: "2026-12-02T09:00:00.000Z", calls: 2, inputTokens: 2100, cachedInputTokens: 0, outputTokens: 100, usd: 0.5625 },
            { start: "2026-12-02T10:00:00.000Z", calls: 3, inputTokens: 1510, cachedInputTokens: 200, outputTokens: 75, usd: 0.375 },
          ],
        },
        day: {
          bucket: "day",
          count: 30,
          first: Date.UTC(2026, 10, 3),
          busy: [
            { start: "2026-11-10T00:00:00.000Z", calls: 1, inputTokens: 8000, cachedInputTokens: 0, outputTokens: 800, usd: 2 },
            { start: "2026-12-01T00:00:00.000Z", calls: 1, inputTokens: 4000, cachedInputTokens: 0, outputTokens: 400, usd: 1 },
            { start: "2026-12-02T00:00:00.000Z", calls: 5, inputTokens: 3610, cachedInputTokens: 200, outputTokens: 175, usd: 0.9375 },
          ],
        },
      });

      // The owner's settings synced: their caps come with the figures; a record without caps (a mind from before them) has none.
      const record = (settings: Record<string, unknown>) => app.call("PUT", `/api/sync/minds/${m.mind}/record`, { token: m.token, body: { settings } });
      expect((await record({ name: "Ada", budget: { hour_usd: 1, day_usd: 5 } })).status).toBe(200);
      expect((await operator.usage()).caps).toEqual({ hour_usd: 1, day_usd: 5 });
      expect((await record({ name: "Ada" })).status).toBe(200);
      expect((await operator.usage()).caps).toBeNull();
      // A member's invite is refused, saying why.
      const refused = await app.call("GET", `/api/share/${links.member.token}/usage`);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: { code: "forbidden", message: "a member's invite may not see what the mind spends (only an operator's invite may)" } });
    });

    it("delivers an alert link's first alerts of a minute one by one and folds the rest into one storm, whole once its minute is over; rate limits and 413s", async () => {
      const { m, links } = await sharedMind();
      const post = (body: unknown) => app.call("POST", `/api/share/${links.alert.token}/alerts`, { body });
      const pending = async () => (await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()) as { alerts: { id: string; label: string; severity: string; title: string; body?: string; count: number; titles: string[] }[] };
      for (const bad of [{}, { title: "" }, { title: "x".repeat(ALERT_LIMITS.titleChars + 1) }, { title: "bad\u0000title" }, { title: "ok", severity: "apocalyptic" }]) {
        const res = await post(bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
      }
      expect((await post({ title: "huge", body: "x".repeat(70 * 1024) })).status).toBe(413);
      const alone: string[] = [];
      for (let i = 1; i <= ALERT_LIMITS.burst; i++) {
        const res = await post({ title: `build ${i} failed`, body: `log of build ${i}`, severity: "error" });
        expect(res.status).toBe(202);
        const got = (await res.json()) as { id: string; coalesced: boolean };
        expect(got.coalesced).toBe(false);
        alone.push(got.id);
      }
      for (let i = 1; i <= 7; i++) {
        const res = await post({ title: `flaky test ${i}`, severity: i === 4 ? "critical" : "warning" });
        expect(await res.json()).toMatchObject({ coalesced: true });
      }
      // A mind put away on the server is woken for each alert of the burst at once, and for the storm once, when it ends.
      const [ends] = await sql.query<{ at: Date }>("SELECT closes_at AS at FROM alert_storms WHERE link = $1", [links.alert.id]);
      expect(wakes.filter((w) => w.mind === m.mind)).toEqual([...alone.map(() => ({ mind: m.mind })), { mind: m.mind, by: new Date(ends!.at).getTime() + 1000 }]);
      // The storm's minute is not over: only the burst is there, each whole.
      let inbox = await pending();
      expect(inbox.alerts.map((a) => [a.id, a.label, a.severity, a.title, a.body, a.count])).toEqual(alone.map((id, i) => [id, "CI", "error", `build ${i + 1} failed`, `log of build ${i + 1}`, 1]));
      // Its minute over (moved by hand, not waited for): one storm, with the count, the titles and the worst severity.
      await sql.query("UPDATE alert_storms SET closes_at = now() WHERE link = $1", [links.alert.id]);
      inbox = await pending();
      expect(inbox.alerts).toHaveLength(ALERT_LIMITS.burst + 1);
      const storm = inbox.alerts.at(-1)!;
      expect(storm).toMatchObject({ count: 7, severity: "critical", label: "CI", titles: Array.from({ length: 7 }, (_, i) => `flaky test ${i + 1}`) });
      // People's messages keep their own queue: an alert storm never pushes one out.
      await app.call("POST", `/api/share/${links.member.token}/messages`, { body: { from: "Bo", content: "Is the build green?" } });
      expect(((await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()) as { messages: { content: string }[] }).messages.map((x) => x.content)).toEqual(["Is the build green?"]);
      // Delivered (a step with the storm's id uploaded): gone from the inbox.
      const asStep = (seq: number, id: string) => ({ seq, traj: "root", json: JSON.stringify({ type: "observation", step_id: id, ts: new Date().toISOString(), source: "alert", content: "an alert" }) });
      expect((await upload(app, m, 3, [asStep(4, storm.id), asStep(5, alone[0]!)])).status).toBe(200);
      expect((await pending()).alerts.map((a) => a.id)).toEqual(alone.slice(1));
      // Over the minute's limit: 429 with Retry-After, nothing stored.
      await sql.query("UPDATE link_alerts SET created_at = now() WHERE link = $1", [links.alert.id]);
      for (let i = ALERT_LIMITS.burst + 7; i < ALERT_LIMITS.perMinute; i++) expect((await post({ title: `more ${i}` })).status).toBe(202);
      const before = await dump(sql);
      const limited = await post({ title: "one too many" });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await dump(sql)).toEqual(before);
    });
  });
}
