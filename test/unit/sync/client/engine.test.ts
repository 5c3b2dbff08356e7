// The sync engine against the real sharing routes, in process: the browser's
// store (fake-indexeddb), the engine and its HTTP client, and lib/server's
// handlers over a real database (PGlite, and PostgreSQL when configured).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharingServer } from "../../server/sync/harness";
import type { Sql } from "@/lib/server/db/sql";
import { OfflineError, type FetchPort } from "@/lib/sync/client/http";
import { shareClient } from "@/lib/sharing/client";
import { syncClient } from "@/lib/sync/client/client";
import { syncEngine, wakeSource, type SyncEngine } from "@/lib/sync/client/engine";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind, setRunning, updateSettings } from "@/lib/store/minds/minds";
import { curate, drainCurationQueue, queuedCurations } from "@/lib/store/minds/curations";
import { readMindNotes } from "@/lib/store/minds/memory";
import { appendStep, putBlob, rowsAfter } from "@/lib/store/steps/steps";
import { getSync, inviteStep, localMind, pendingSteps, syncState, updateSync } from "@/lib/store/sync/sync";
import { sendMessage } from "@/lib/store/steps/messages";
import { pendingOwnerChanges } from "@/lib/server/inbox/owner";
import { stampStep, type Step } from "@/lib/trajectory/schema";
import { FakeClock } from "../../helpers/fake-clock";
import { openTestDb } from "../../helpers/db";
import { engines } from "../../server/databases";
import { openaiStyle } from "../../../fixtures/fake-keys";
import { drainDoor } from "@/lib/store/steps/door";

const BASE = "http://reverie.test";
const HELD_KEY = "held-model-key-0001";
/** A key no one holds here, caught by its pattern. */
const PATTERN_KEY = openaiStyle("abcdefghijklmnopqrstuvwxyz");

describe("inviteStep", () => {
  const msg = { id: "0f0f0f0f-0000-4000-8000-000000000001", from: "Gwen", content: "hi", created_at: "2025-01-01T00:00:00.000Z", link: "l1" };
  it("is a message from the guest's name to the mind, with the message's id", () => {
    expect(inviteStep(msg, "Ada", Date.parse("2025-01-02T00:00:00Z"))).toEqual({ type: "message", step_id: msg.id, ts: "2025-01-02T00:00:00.000Z", source: "invite", from: "Gwen", to: "Ada", content: "hi" });
  });
  it("marks a guest who took the mind's own name", () => {
    expect(inviteStep({ ...msg, from: " ada" }, "Ada", 0)).toMatchObject({ from: " ada (guest)", to: "Ada" });
  });
});

describe.each(engines)("sync engine against the sharing routes ($name)", (engine) => {
  let db: ReverieDb;
  let sql: Sql;
  let remove: () => Promise<void>;
  let mindId: string;
  let offline: boolean;
  /** Runs after each request the server answered (to change the server's state between two of the engine's requests). */
  let afterRequest: (req: Request) => Promise<void>;
  let fetchPort: FetchPort;
  let clock: FakeClock;
  let n = 0;

  const step = (type: string, fields: Record<string, unknown>): Step =>
    stampStep({ type, ...fields } as never, { id: `${(++n).toString(16).padStart(8, "0")}-0000-4000-8000-bbbbbbbbbbbb`, now: Date.parse("2025-01-01T00:00:00Z") + n * 1000 });
  const makeEngine = (): SyncEngine => syncEngine({ client: syncClient(fetchPort, BASE), local: localMind(db, mindId), state: syncState(db, mindId), clock });
  const token = async () => {
    const rec = await getSync(db, mindId);
    if (!rec?.server_mind || !rec.write_token) throw new Error("not synced");
    return { mind: rec.server_mind, token: rec.write_token };
  };
  const readAll = async (linkToken: string) => (await shareClient(fetchPort, linkToken, BASE).steps({ after: 0, limit: 2000 })).steps;

  beforeEach(async (ctx) => {
    if (engine.skip) ctx.skip();
    const server = await sharingServer(engine);
    ({ sql, remove } = server);
    const handle = server.fetch;
    offline = false;
    afterRequest = async () => {};
    fetchPort = async (input, init) => {
      if (offline) throw new TypeError("Failed to fetch");
      const req = new Request(input, init);
      const res = await handle(req);
      await afterRequest(req);
      return res;
    };
    clock = new FakeClock();
    db = await openTestDb("share-sync");
    mindId = (await createMind(db, { name: "Ada", persona: "", model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m", apiKey: HELD_KEY } })).id;
  }, 60_000);
  afterEach(async () => {
    db?.close();
    await remove?.();
  }, 60_000);

  it("the first push makes the server's mind and a write token, and uploads every step and blob, scrubbed", async () => {
    await appendStep(db, mindId, step("thought", { content: `my key is ${HELD_KEY} and ${PATTERN_KEY}` }));
    await putBlob(db, mindId, "blobs/out-1.txt", `long output with ${HELD_KEY}`);
    await appendStep(db, mindId, step("shell-output", { stdout: "long output", stderr: "", exit: 0, exec_s: 0.1, timed_out: false, stdout_ref: "blobs/out-1.txt", stdout_bytes: 9000, stdout_truncated: true }));
    const engine = makeEngine();

    expect(await engine.push()).toBe(4); // trajectory + config (createMind) + the two above
    const rec = await getSync(db, mindId);
    const local = await rowsAfter(db, mindId, 0);
    expect(rec).toMatchObject({ enabled: true, last_seq: local[local.length - 1]?.seq });
    expect(rec?.last_error).toBeUndefined();
    expect(rec?.write_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await pendingSteps(db, mindId, rec?.last_seq ?? 0)).toBe(0);
    // What the server holds against the mind's quota, as it said: the share bar shows it.
    const [held] = await sql.query<{ bytes: string; steps: string; blobs: string }>("SELECT bytes::text, step_count::text AS steps, blob_count::text AS blobs FROM sync_minds");
    expect(rec?.quota).toMatchObject({ bytes: Number(held!.bytes), steps: 4, blobs: 1, max_bytes: 256 * 1024 * 1024 });
    expect(Number(held!.bytes)).toBeGreaterThan(0);

    const { mind, token: write } = await token();
    const link = await syncClient(fetchPort, BASE).createLink(mind, write, { kind: "live" });
    const served = await readAll(link.token);
    const scrubbed = local.map((r) => ({ seq: r.seq, traj: mindId, json: r.json.replace(HELD_KEY, "[redacted]").replace(PATTERN_KEY, "[redacted]") }));
    expect(served).toEqual(scrubbed);
    expect(served.some((s) => s.json.includes(HELD_KEY))).toBe(false);
    expect(await shareClient(fetchPort, link.token, BASE).blob("blobs/out-1.txt")).toBe("long output with [redacted]");
    const shared = await shareClient(fetchPort, link.token, BASE).mind();
    expect(shared).toEqual({ kind: "live", role: null, name: "Ada", at_seq: null, last_seq: rec?.last_seq, trajectories: [{ traj: mindId, name: "Ada", dir: "" }] });
  });

  it("is idempotent, fails offline without losing anything, and resumes from the server's last_seq", async () => {
    const engine = makeEngine();
    await engine.push();
    expect(await engine.push()).toBe(0);

    offline = true;
    await appendStep(db, mindId, step("thought", { content: "while offline 1" }));
    await appendStep(db, mindId, step("thought", { content: "while offline 2" }));
    await expect(engine.push()).rejects.toBeInstanceOf(OfflineError);
    const before = await getSync(db, mindId);
    expect(await pendingSteps(db, mindId, before?.last_seq ?? 0)).toBe(2);

    offline = false;
    // A new engine (a reloaded tab) resumes from what the server says it has.
    expect(await makeEngine().push()).toBe(2);
    const { mind, token: write } = await token();
    const link = await syncClient(fetchPort, BASE).createLink(mind, write, { kind: "snapshot" });
    const served = await readAll(link.token);
    expect(served.map((s) => (JSON.parse(s.json) as Step).type)).toEqual(["trajectory", "config", "thought", "thought"]);
  });

  it("resends from the server's last_seq when the server holds less than it said (a gap)", async () => {
    const engine = makeEngine();
    await engine.push();
    const { mind } = await token();
    const [keep] = await sql.query<{ seq: string | number }>("SELECT min(seq) AS seq FROM sync_steps WHERE mind = $1", [mind]);
    await appendStep(db, mindId, step("thought", { content: "after the restore" }));
    // Between the engine reading the server's state and uploading, the server is restored to an older copy.
    afterRequest = async (req) => {
      if (req.method !== "GET" || !req.url.endsWith(`/api/sync/minds/${mind}`)) return;
      afterRequest = async () => {};
      // A restore loads an older copy whole; the app never deletes a step, so the test lifts the append-only trigger as only the table's owner can.
      await sql.transaction(async (tx) => {
        await tx.query("ALTER TABLE sync_steps DISABLE TRIGGER sync_steps_append_only");
        await tx.query("DELETE FROM sync_steps WHERE mind = $1 AND seq > $2", [mind, keep?.seq]);
        await tx.query("ALTER TABLE sync_steps ENABLE TRIGGER sync_steps_append_only");
      });
      await sql.query("UPDATE sync_minds SET last_seq = $2 WHERE id = $1", [mind, keep?.seq]);
    };
    expect(await engine.push()).toBe(2); // the config step again, and the new thought
    const [count] = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM sync_steps WHERE mind = $1", [mind]);
    expect(count?.n).toBe(3);
  });

  it("after an upload whose answer was lost, the record's seq here moves with the server's (a later pull sets nothing of it aside)", async () => {
    const engine = makeEngine();
    await engine.push();
    const last = step("thought", { content: "its answer never came back" });
    await appendStep(db, mindId, last);
    // The server stores the batch; its answer is lost on the way back.
    afterRequest = async (req) => {
      if (req.method !== "POST" || !req.url.endsWith("/steps")) return;
      afterRequest = async () => {};
      throw new TypeError("Failed to fetch");
    };
    await expect(engine.push()).rejects.toBeInstanceOf(OfflineError);
    const { mind } = await token();
    const [server] = await sql.query<{ last_seq: string | number }>("SELECT last_seq FROM sync_minds WHERE id = $1", [mind]);
    // The next pass finds the server's last step here: nothing to send, and the record says where both stand.
    expect(await engine.push()).toBe(0);
    const here = (await rowsAfter(db, mindId, 0)).at(-1);
    expect(JSON.parse(here?.json ?? "{}")).toMatchObject({ step_id: last.step_id });
    expect(await getSync(db, mindId)).toMatchObject({ last_seq: Number(server?.last_seq), local_seq: here?.seq });
  });

  it("appends each guest message once as a message step, and the server counts it delivered once uploaded", async () => {
    const engine = makeEngine();
    await engine.push();
    // No worker runs it here: stopped, the message is appended at once (a running mind's writer takes it from its door).
    await setRunning(db, mindId, false);
    const { mind, token: write } = await token();
    const sync = syncClient(fetchPort, BASE);
    const invite = await sync.createLink(mind, write, { kind: "invite" });
    const { id } = await shareClient(fetchPort, invite.token, BASE).send("Gwen", "hello Ada");

    expect(await engine.pullInbox()).toBe(1);
    expect(await engine.pullInbox()).toBe(0); // still in the inbox until uploaded, but already a step here
    const msgs = (await rowsAfter(db, mindId, 0)).filter((r) => r.type === "message").map((r) => JSON.parse(r.json) as Step);
    expect(msgs).toEqual([{ type: "message", step_id: id, ts: new Date(clock.now()).toISOString(), source: "invite", from: "Gwen", to: "Ada", content: "hello Ada", role: "member" }]);

    expect((await sync.inbox(mind, write)).messages).toHaveLength(1);
    await engine.push();
    expect(await sync.inbox(mind, write)).toEqual({ messages: [], controls: [], alerts: [], curations: [], owner: [] });
    const links = await sync.links(mind, write);
    expect(links.find((l) => l.id === invite.id)?.guests).toEqual([{ name: "Gwen", messages: 1, last_at: expect.any(String) }]);
  });

  it("records an operator's pause and resume as observations naming who asked, once each, and obeys them through the mind's running flag", async () => {
    const engine = makeEngine();
    await engine.push();
    await setRunning(db, mindId, true);
    const { mind, token: write } = await token();
    const sync = syncClient(fetchPort, BASE);
    const operator = shareClient(fetchPort, (await sync.createLink(mind, write, { kind: "invite", role: "operator" })).token, BASE);
    const { id: paused } = await operator.control("pause", "Cy");
    expect(await engine.pullInbox()).toBe(1);
    expect(await engine.pullInbox()).toBe(0);
    expect((await getMind(db, mindId))?.running).toBe(false);
    // It ran, so the pause was handed in at its door; no worker runs it here to take it as it stops: the runner's tab appends what is left.
    await drainDoor(db, mindId);
    const observed = () => rowsAfter(db, mindId, 0).then((rows) => rows.filter((r) => r.type === "observation").map((r) => JSON.parse(r.json) as Step & { content: string }));
    expect(await observed()).toEqual([
      { type: "observation", step_id: paused, ts: new Date(clock.now()).toISOString(), source: "control", action: "pause", by: "Cy", role: "operator", content: expect.stringMatching(/^Cy \(operator\) paused you/) },
    ]);
    await operator.control("resume", "");
    expect(await engine.pullInbox()).toBe(1);
    expect((await getMind(db, mindId))?.running).toBe(true);
    expect((await observed()).map((s) => s.content)).toEqual([expect.stringMatching(/^Cy \(operator\) paused/), expect.stringMatching(/^an operator \(operator\) resumed you/)]);
    await engine.push();
    expect((await sync.inbox(mind, write)).controls).toEqual([]);
    // A guest may not.
    const guest = shareClient(fetchPort, (await sync.createLink(mind, write, { kind: "invite", role: "guest" })).token, BASE);
    await expect(guest.control("pause", "Bo")).rejects.toMatchObject({ status: 403, code: "forbidden" });
  });

  it("takes an operator's change to the mind's memory from the inbox once: queued for a running mind's worker, made at once on a stopped one's files", async () => {
    const engine = makeEngine();
    await engine.push();
    await setRunning(db, mindId, true);
    const { mind, token: write } = await token();
    const sync = syncClient(fetchPort, BASE);
    const operator = shareClient(fetchPort, (await sync.createLink(mind, write, { kind: "invite", role: "operator" })).token, BASE);
    const { id } = await operator.curate({ what: "goal", op: "add", text: "tidy the garden" }, "Cy");
    expect((await operator.memory()).pending.map((p) => [p.id, p.by, p.text])).toEqual([[id, "Cy", "tidy the garden"]]);
    // Running: queued for its worker, once however often the inbox is read.
    expect(await engine.pullInbox()).toBe(1);
    expect(await engine.pullInbox()).toBe(0);
    expect((await queuedCurations(db, mindId)).map((c) => [c.id, c.by, c.role])).toEqual([[id, "Cy", "operator"]]);
    // Its worker stopped before taking it: the stopped mind's files take it, with its step.
    await setRunning(db, mindId, false);
    expect(await drainCurationQueue(db, mindId, clock.now())).toBe(1);
    expect((await readMindNotes(db, mindId)).goals.map((g) => g.goal)).toEqual(["tidy the garden"]);
    const recorded = (await rowsAfter(db, mindId, 0)).filter((r) => r.step_id === id).map((r) => JSON.parse(r.json) as Step & { content: string });
    expect(recorded).toEqual([expect.objectContaining({ type: "observation", source: "curation", by: "Cy", role: "operator", content: expect.stringMatching(/^Cy \(operator\) set you a goal, [0-9a-f]{4}: tidy the garden$/) })]);
    // Uploaded: no longer waiting on the server; read again, nothing is made twice.
    await engine.push();
    expect((await sync.inbox(mind, write)).curations).toEqual([]);
    expect(await engine.pullInbox()).toBe(0);
    // A stopped mind takes the next one at once.
    const { id: second } = await operator.curate({ what: "goal", op: "add", text: "water the beans" }, "Cy");
    expect(await engine.pullInbox()).toBe(1);
    expect((await readMindNotes(db, mindId)).goals.map((g) => g.goal)).toEqual(["tidy the garden", "water the beans"]);
    expect((await rowsAfter(db, mindId, 0)).filter((r) => r.step_id === second)).toHaveLength(1);
    // A member may not.
    const member = shareClient(fetchPort, (await sync.createLink(mind, write, { kind: "invite", role: "member" })).token, BASE);
    await expect(member.curate({ what: "goal", op: "add", text: "x" }, "Bo")).rejects.toMatchObject({ status: 403, code: "forbidden" });
    await expect(member.memory()).rejects.toMatchObject({ status: 403, code: "forbidden" });
  });

  it("while another home holds it, what this browser hands the mind (a message, its settings, a change to its memory) goes to the server once, keyless", async () => {
    const engine = makeEngine();
    await engine.push();
    const { mind } = await token();
    // Kept alive, and this browser holds no lease: another home has the mind.
    await updateSync(db, mindId, (r) => ({ ...r, keep_alive: true, epoch: undefined }));
    const said = await sendMessage(db, mindId, { from: "Ada", to: "Ada", content: "from my phone" });
    const current = await getMind(db, mindId);
    if (!current) throw new Error("no mind");
    await updateSettings(db, mindId, { model: current.model, pacing: current.pacing, max_iterations: 3 });
    await curate(db, mindId, { what: "goal", op: "add", text: "water the beans", id: "c0ffee01-0000-4000-8000-000000000000", by: "", role: "owner" });
    expect(await engine.forward()).toBe(3);
    expect(await engine.forward()).toBe(0);
    const kept = await pendingOwnerChanges(sql, mind);
    expect(kept.map((c) => (c.kind === "step" ? `step ${String(c.step.type)}` : c.kind))).toEqual(["step message", "step config", "curation"]);
    expect(kept[0]).toMatchObject({ id: said.step_id, step: { content: "from my phone" } });
    expect(kept[1]).toMatchObject({ settings: { max_iterations: 3 } });
    expect(JSON.stringify(kept)).not.toContain(HELD_KEY);
    // This browser holding it again: nothing is forwarded (its own writer takes what waits).
    await updateSync(db, mindId, (r) => ({ ...r, epoch: 7 }));
    await sendMessage(db, mindId, { from: "Ada", to: "Ada", content: "from here" });
    expect(await engine.forward()).toBe(0);
  });

  it("run: saves the error while offline, backs off, and catches up once online", async () => {
    const engine = makeEngine();
    await engine.enable();
    offline = true;
    const wakes = wakeSource();
    const stop = new AbortController();
    const running = engine.run(stop.signal, wakes);
    await vi.waitFor(async () => expect((await getSync(db, mindId))?.last_error).toMatch(/could not be reached/));
    expect((await getSync(db, mindId))?.last_seq).toBe(0);

    offline = false;
    await vi.waitFor(async () => {
      if (clock.sleeping.length) clock.advanceToNextWake();
      const rec = await getSync(db, mindId);
      expect(rec?.last_error).toBeUndefined();
      expect(rec?.last_seq).toBeGreaterThan(0);
    });
    expect(clock.requested.slice(0, 1)).toEqual([1000]); // the first retry, a second later

    // A new step and a nudge: uploaded without waiting for the idle poll.
    await appendStep(db, mindId, step("thought", { content: "fresh" }));
    wakes.nudge();
    await vi.waitFor(async () => {
      if (clock.sleeping.includes(60)) clock.advance(60);
      const rec = await getSync(db, mindId);
      expect(await pendingSteps(db, mindId, rec?.last_seq ?? 0)).toBe(0);
    });
    stop.abort();
    await running;
  });

  it("run: the network coming back ends a backoff at once (what was written meanwhile goes up without waiting for the retry)", async () => {
    const engine = makeEngine();
    await engine.enable();
    offline = true;
    const wakes = wakeSource();
    const back = wakeSource();
    const stop = new AbortController();
    const running = engine.run(stop.signal, wakes, back);
    await vi.waitFor(async () => expect((await getSync(db, mindId))?.last_error).toMatch(/could not be reached/));
    // Backing off (the test clock never moves on its own): online again, and told so.
    await vi.waitFor(() => expect(clock.sleeping.length).toBeGreaterThan(0));
    offline = false;
    back.nudge();
    await vi.waitFor(async () => {
      if (clock.sleeping.includes(60)) clock.advance(60);
      const rec = await getSync(db, mindId);
      expect(rec?.last_error).toBeUndefined();
      expect(rec?.last_seq).toBeGreaterThan(0);
    });
    stop.abort();
    await running;
  });
});
