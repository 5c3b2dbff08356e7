// The server runner (lib/server/runner/runner.ts) over a real database, on
// both engines: a kept-alive mind is woken from the wake queue and runs its
// own loop there (wake steps say home "server" and the lease epoch; its file
// lands in the workspace table; its next wake goes back into the queue as
// its pacing says, and the lease is let go); a guest's message wakes it and
// its responder answers; a tab asking for the lease makes it hand over (the
// run is cut and recorded, nothing is written after); a halted mind is not
// taken. The model is a fake at the model port (the runner's real model is
// the proxy's in-process route, tested in the e2e), named FAKE below.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelPort, ModelRequest, ModelResult } from "@/lib/mind/ports";
import type { Sql } from "@/lib/server/db/sql";
import { hostBoundNetwork } from "@/lib/server/runner/network";
import { listMinds } from "@/lib/server/runner/main";
import { Runner } from "@/lib/server/runner/runner";
import { acquireLease } from "@/lib/server/state/lease";
import { forgetMind } from "@/lib/server/sync/forget";
import { engines } from "../databases";
import { keptAlive as keptMind, until } from "../../helpers/kept-minds";
import { instance, newLink, type App } from "../sync/harness";


const RESPONDER = "Reply with the text of your answer only";

/** FAKE model: the responder answers; the inner life writes a file, then idles. `hold` makes the inner life's call wait until aborted (a long run). */
function fakeModel(opts: { hold?: () => boolean } = {}): ModelPort & { calls: number; saw: string[] } {
  const port = {
    name: "fake/model",
    calls: 0,
    /** What each call's messages said, in order. */
    saw: [] as string[],
    async complete(req: ModelRequest): Promise<ModelResult> {
      port.calls++;
      port.saw.push(req.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n"));
      if (req.instructions.includes(RESPONDER)) return { ok: true, text: "Hello from the server." };
      if (opts.hold?.()) {
        await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve(), { once: true }));
        return { ok: false, error: "aborted", aborted: true };
      }
      return { ok: true, text: 'Noting that I ran here.\n```bash\necho "server was here" >> /workspace/notes.txt\nFINAL="idle: noted"\n```' };
    },
  };
  return port;
}


for (const engine of engines) {
  describe.skipIf(engine.skip)(`the server runner on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    let runner: Runner;
    let hold = false;
    const model = fakeModel({ hold: () => hold });
    const startRunner = async (o: { leaseS: number; pollMs: number }) => {
      const r = new Runner({ sql, maxMinds: 5, ...o, wakes: { pollSeconds: 0.5 }, model: async () => model, network: (s) => hostBoundNetwork(s.permissions, []), log: () => undefined });
      await r.start();
      return r;
    };

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
      runner = await startRunner({ leaseS: 5, pollMs: 100 });
    }, 120_000);
    afterAll(async () => {
      await runner?.stop();
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    /** A mind its tab synced: its root trajectory is named by its id in the tab, which the runner's steps must go on in. */
    const keptAlive = (name: string) => keptMind(app, sql, name);
    const steps = async (mind: string): Promise<Record<string, unknown>[]> => (await sql.query<{ seq: number; json: string }>("SELECT seq, json FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind])).map((r) => ({ seq: Number(r.seq), ...(JSON.parse(r.json) as Record<string, unknown>) }));

    it("a due wake runs the mind's own loop here: home server, its epoch, its file, its next wake queued, the lease let go", async () => {
      const m = await keptAlive("Ada");
      await runner.wakes().now(m.mind, "scheduled");
      const wakes = await until("two wakes on the server", async () => {
        const w = (await steps(m.mind)).filter((s) => s.type === "wake");
        return w.length >= 2 && w;
      });
      for (const w of wakes) expect(w).toMatchObject({ home: "server" });
      const epochs = wakes.map((w) => Number(w.epoch));
      expect(epochs.every((e, i) => i === 0 || e >= epochs[i - 1]!)).toBe(true);
      const all = await steps(m.mind);
      expect(all.map((s) => s.seq)).toEqual(all.map((_, i) => i + 1));
      const [{ n } = { n: 0 }] = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM sync_steps WHERE mind = $1 AND traj <> $2", [m.mind, m.tabId]);
      expect(n).toBe(0);
      const [file] = await sql.query<{ data: Uint8Array }>("SELECT data FROM mind_files WHERE mind = $1 AND path = '/workspace/notes.txt'", [m.mind]);
      expect(new TextDecoder().decode(file?.data)).toContain("server was here");
      // Its own texts (self/) were written at its first start, here, once: each later stretch on the server finds them as recorded.
      const selfEdits = all.filter((s) => s.type === "self-edit");
      expect(selfEdits.map((s) => [s.path, (s.by as { why?: string }).why])).toEqual(["persona.md", "instructions.md", "first-look.md", "responder.md", "summarizer.md"].map((f) => [`self/${f}`, "first-start"]));
      const texts = await sql.query<{ path: string }>("SELECT path FROM mind_files WHERE mind = $1 AND path LIKE '/workspace/self/%' ORDER BY path", [m.mind]);
      expect(texts.map((t) => t.path)).toEqual(["/workspace/self/first-look.md", "/workspace/self/instructions.md", "/workspace/self/persona.md", "/workspace/self/responder.md", "/workspace/self/summarizer.md", "/workspace/self/watchers"]);
      // Between wakes the mind waits as a job, not in memory, and holds no lease.
      await until("the mind put away, its lease let go", async () => {
        const [lease] = await sql.query<{ live: boolean }>("SELECT expires_at > now() AS live FROM mind_leases WHERE mind = $1", [m.mind]);
        return !runner.hostedMinds().some((h) => h.mind === m.mind) && lease?.live === false;
      });
      const [pacing] = await sql.query<{ pacing: string }>("SELECT pacing FROM sync_minds WHERE id = $1", [m.mind]);
      expect(JSON.parse(pacing?.pacing ?? "null")).toMatchObject({ failures: 0 });
    });

    it("a guest's message through an invite reaches it on the server, and its responder answers once", async () => {
      const m = await keptAlive("Bea");
      const invite = await newLink(app, m, "invite");
      const res = await app.call("POST", `/api/share/${invite.token}/messages`, { body: { from: "Gwen", content: "Are you there?" } });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      // The test's app has no runner hooks: the wake a real server queues on a guest message is queued here by hand.
      await runner.wakes().now(m.mind, "message");
      const reply = await until("the reply", async () => (await steps(m.mind)).find((s) => s.type === "message" && s.reply_to === id));
      expect(reply).toMatchObject({ from: "Bea", to: "Gwen", content: "Hello from the server." });
      const delivered = (await steps(m.mind)).filter((s) => s.step_id === id);
      expect(delivered).toHaveLength(1);
      expect((await steps(m.mind)).filter((s) => s.type === "message" && s.reply_to === id)).toHaveLength(1);
    });

    it("a tab asking for the lease makes it hand over within seconds: the run is cut and recorded, nothing is written after", async () => {
      const m = await keptAlive("Cy");
      hold = true;
      await runner.wakes().now(m.mind, "scheduled");
      await until("a run under way", async () => (await steps(m.mind)).some((s) => s.type === "shellm-run"));
      const asked = await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:one" } });
      expect(asked.status).toBe(409);
      expect(await asked.json()).toMatchObject({ error: { code: "leased", handing_over: true } });
      const t0 = Date.now();
      const got = await until("the lease for the tab", async () => {
        const r = await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:one" } });
        return r.status === 200 && ((await r.json()) as { epoch: number });
      });
      expect(Date.now() - t0).toBeLessThan(5_000);
      hold = false;
      const all = await steps(m.mind);
      const run = all.find((s) => s.type === "shellm-run");
      // The cut run has its ending (the loop records a stop), so a reopened tab finds nothing left open.
      expect(all.some((s) => s.run_id === run?.step_id && (s.type === "error" || s.type === "final"))).toBe(true);
      const wake = all.filter((s) => s.type === "wake").at(-1);
      expect(Number(wake?.epoch)).toBeLessThan(got.epoch);
      const count = all.length;
      await new Promise((r) => setTimeout(r, 1500));
      expect((await steps(m.mind)).length).toBe(count);
    });

    it("an operator's pause ends its stretch on the server and is recorded with who asked; it stays put until a resume wakes it", async () => {
      const m = await keptAlive("Hal");
      const operator = await newLink(app, m, "invite", { role: "operator" });
      hold = true;
      await runner.wakes().now(m.mind, "scheduled");
      await until("a run under way", async () => (await steps(m.mind)).some((s) => s.type === "shellm-run"));
      const paused = await app.call("POST", `/api/share/${operator.token}/control`, { body: { action: "pause", from: "Cy" } });
      expect(paused.status).toBe(202);
      const { id } = (await paused.json()) as { id: string };
      await until("the stretch ended", async () => !runner.hostedMinds().some((h) => h.mind === m.mind));
      hold = false;
      const all = await steps(m.mind);
      const recorded = all.filter((s) => s.step_id === id);
      expect(recorded).toEqual([expect.objectContaining({ type: "observation", source: "control", action: "pause", by: "Cy", content: expect.stringMatching(/^Cy \(operator\) paused you/) })]);
      const run = all.find((s) => s.type === "shellm-run");
      expect(all.some((s) => s.run_id === run?.step_id && (s.type === "error" || s.type === "final"))).toBe(true);
      // Paused: a due wake is dropped, nothing is written.
      await runner.wakes().now(m.mind, "scheduled");
      await new Promise((r) => setTimeout(r, 1500));
      expect((await steps(m.mind)).length).toBe(all.length);
      // Resumed: the server's own route would queue the wake (the test's app has no runner hooks); it thinks again and records the resume.
      expect((await app.call("POST", `/api/share/${operator.token}/control`, { body: { action: "resume", from: "Cy" } })).status).toBe(202);
      await runner.wakes().now(m.mind, "scheduled");
      const after = await until("a wake after the resume", async () => {
        const now = await steps(m.mind);
        const resumed = now.findIndex((s) => s.type === "observation" && s.action === "resume");
        return resumed >= 0 && now.slice(resumed).some((s) => s.type === "wake") && now;
      });
      expect(after.filter((s) => s.source === "control").map((s) => s.action)).toEqual(["pause", "resume"]);
    });

    it("an operator's change to its memory is made in its workspace on the server, recorded once with who made it, and read by its next call", async () => {
      const m = await keptAlive("Ivy");
      const operator = await newLink(app, m, "invite", { role: "operator" });
      const res = await app.call("POST", `/api/share/${operator.token}/memory`, { body: { what: "memory", op: "add", text: "The deploy key rotates on Fridays.", tags: ["ops"], from: "Cy" } });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      const before = model.saw.length;
      // The test's app has no runner hooks: the wake the server's route queues is queued here by hand.
      await runner.wakes().now(m.mind, "message");
      const recorded = await until("the change recorded", async () => (await steps(m.mind)).find((s) => s.step_id === id));
      const memId = id.replace(/-/g, "").slice(0, 8);
      expect(recorded).toMatchObject({ type: "observation", source: "curation", by: "Cy", role: "operator", op: "add", target: memId, content: `Cy (operator) added a memory, ${memId} (tags: ops): The deploy key rotates on Fridays.` });
      const [file] = await sql.query<{ data: Uint8Array }>("SELECT data FROM mind_files WHERE mind = $1 AND path = $2", [m.mind, `/workspace/memory/${memId}.md`]);
      expect(new TextDecoder().decode(file?.data)).toContain("The deploy key rotates on Fridays.");
      await until("a call after it", async () => model.saw.slice(before).some((t) => t.includes(`[curation] Cy (operator) added a memory, ${memId}`)));
      // Read again later: not made twice.
      await runner.wakes().now(m.mind, "scheduled");
      await new Promise((r) => setTimeout(r, 1000));
      expect((await steps(m.mind)).filter((s) => s.source === "curation")).toHaveLength(1);
      const files = await sql.query<{ path: string }>("SELECT path FROM mind_files WHERE mind = $1 AND path LIKE '/workspace/memory/%'", [m.mind]);
      expect(files.map((f) => f.path)).toEqual([`/workspace/memory/${memId}.md`]);
    });

    it("reverie minds lists the kept minds: where each lives, its epoch, its spend today on the server", async () => {
      const m = await keptAlive("Fay");
      await sql.query("INSERT INTO mind_usage (mind, step_id, ts_ms, usd) VALUES ($1, 'u1', $2, 0.25), ($1, 'u2', $3, 1)", [m.mind, Date.now(), Date.now() - 2 * 86_400_000]);
      const tab = await acquireLease(sql, m.mind, "tab:z");
      const lines = await listMinds(sql);
      expect(lines.find((l) => l.mind === m.mind)).toEqual({ mind: m.mind, name: "Fay", keep_alive: true, halted: false, home: "tab", holder: "tab:z", epoch: tab.ok ? tab.lease.epoch : -1, spend_today_usd: 0.25 });
      await sql.query("UPDATE mind_leases SET expires_at = now() WHERE mind = $1", [m.mind]);
      expect((await listMinds(sql)).find((l) => l.mind === m.mind)).toMatchObject({ home: "server", holder: null });
    });

    it("a mind its host forgets while the runner hosts it is let go: nothing of it is written again, and a wake for it is dropped", async () => {
      const m = await keptAlive("Ivy");
      hold = true;
      try {
        await runner.wakes().now(m.mind, "scheduled");
        await until("a run under way", async () => (await steps(m.mind)).some((s) => s.type === "shellm-run"));
        expect(runner.hostedMinds().map((h) => h.mind)).toContain(m.mind);
        expect(await forgetMind(sql, m.mind)).toBe(true);
        // Its lease row went with it: the next renewal finds none, and the runner stops the mind.
        await until("the runner let it go", async () => !runner.hostedMinds().some((h) => h.mind === m.mind));
      } finally {
        hold = false;
      }
      await runner.wakes().now(m.mind, "scheduled");
      await new Promise((r) => setTimeout(r, 1500));
      expect(runner.hostedMinds().some((h) => h.mind === m.mind)).toBe(false);
      expect(await steps(m.mind)).toEqual([]);
      expect(await sql.query("SELECT id FROM sync_minds WHERE id = $1", [m.mind])).toEqual([]);
    });

    it("a halted mind, or one whose keep-alive is off, is not taken", async () => {
      const m = await keptAlive("Di");
      await sql.query("UPDATE sync_minds SET halted_at = now() WHERE id = $1", [m.mind]);
      const n = await keptAlive("Ed");
      await sql.query("UPDATE sync_minds SET keep_alive = false WHERE id = $1", [n.mind]);
      await runner.wakes().now(m.mind, "scheduled");
      await runner.wakes().now(n.mind, "scheduled");
      await new Promise((r) => setTimeout(r, 2000));
      expect((await steps(m.mind)).map((s) => s.type)).toEqual(["trajectory"]);
      expect((await steps(n.mind)).map((s) => s.type)).toEqual(["trajectory"]);
      expect((await acquireLease(sql, m.mind, "tab:x")).ok).toBe(true);
    });

    it("hears a tab's request at once (pg_notify), not at its next poll", async () => {
      // A runner that polls once a minute and holds leases for 30 s: only the notification can make it hand over within 10 s.
      await runner.stop();
      runner = await startRunner({ leaseS: 30, pollMs: 60_000 });
      try {
        const m = await keptAlive("Gil");
        hold = true;
        await runner.wakes().now(m.mind, "scheduled");
        await until("a run under way", async () => (await steps(m.mind)).some((s) => s.type === "shellm-run"));
        const ask = () => app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:two" } });
        expect((await ask()).status).toBe(409);
        const got = await until("the lease for the tab", async () => (await ask()).status === 200, 10_000);
        expect(got).toBe(true);
        hold = false;
        expect(runner.hostedMinds().map((h) => h.mind)).not.toContain(m.mind);
      } finally {
        hold = false;
        await runner.stop();
        runner = await startRunner({ leaseS: 5, pollMs: 100 });
      }
    });
  });
}
