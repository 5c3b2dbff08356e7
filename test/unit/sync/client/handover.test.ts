// A mind moving between its homes, step by step, against the real routes
// (in process) on both engines: the tab holds the lease and uploads under
// its epoch; its lease lapses and the server's home writes on (as a runner
// does, through the SQL home of the MindState port); the tab, asleep past
// its lease, wrote steps that the server refuses (fenced); taking the mind
// back, the tab pulls the server's steps (and blobs, and usage) in order,
// sets its own refused ones aside (their copies in a child trajectory; the
// rows themselves stay where they are, unchanged, and no read sees them in the
// mind's line), says what happened while it was away, and uploads on. Across
// the life: the server's seqs have no gap, no step id is twice anywhere, the
// pull deletes and changes no row of this browser, and wake epochs never go back.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { sharingServer } from "../../server/sync/harness";
import { acquireLease } from "@/lib/server/state/lease";
import { sqlMindState } from "@/lib/server/state/sql-mind-state";
import { ApiRequestError, type FetchPort } from "@/lib/sync/client/http";
import { syncClient } from "@/lib/sync/client/client";
import { homeClient } from "@/lib/sync/client/home-client";
import { ServerAheadError, syncEngine } from "@/lib/sync/client/engine";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind } from "@/lib/store/minds/minds";
import { parseMindSettings } from "@/lib/mind/settings/settings";
import { appendStep, getBlob, tailSteps } from "@/lib/store/steps/steps";
import { asideRows } from "@/lib/store/steps/aside";
import { CUT_OFF_NAME, pullServerSteps } from "@/lib/store/sync/pull";
import { getSync, localMind, syncState, updateSync } from "@/lib/store/sync/sync";
import { stampStep, type Step } from "@/lib/trajectory/schema";
import { FakeClock } from "../../helpers/fake-clock";
import { openTestDb } from "../../helpers/db";
import { engines } from "../../server/databases";

const BASE = "http://reverie.test";

describe.each(engines)("handover between the tab and the server ($name)", (engine) => {
  let db: ReverieDb;
  let sql: Sql;
  let remove: () => Promise<void>;
  let mindId: string;
  let fetchPort: FetchPort;
  let n = 0;
  const step = (type: string, fields: Record<string, unknown>): Step =>
    stampStep({ type, ...fields } as never, { id: `${(++n).toString(16).padStart(8, "0")}-0000-4000-8000-cccccccccccc`, now: Date.parse("2026-12-01T00:00:00Z") + n * 1000 });

  beforeEach(async (ctx) => {
    if (engine.skip) ctx.skip();
    const server = await sharingServer(engine);
    ({ sql, remove } = server);
    const handle = server.fetch;
    fetchPort = (input, init) => handle(new Request(input, init));
    db = await openTestDb("handover");
    mindId = (await createMind(db, { name: "Ada", persona: "", model: { provider: "proxy", model: "m" } })).id;
  }, 60_000);
  afterEach(async () => {
    db?.close();
    await remove?.();
  }, 60_000);

  it("moves to the server and back without losing or doubling a step, and says what it did away", async () => {
    const engine = syncEngine({ client: syncClient(fetchPort, BASE), local: localMind(db, mindId), state: syncState(db, mindId), clock: new FakeClock() });
    const home = homeClient(fetchPort, BASE);
    await appendStep(db, mindId, step("wake", { reason: "start", level: 0, delay_s: 0, source: "monolith" }));
    await engine.push();
    const { server_mind: mind, write_token: token } = (await getSync(db, mindId))!;
    const creds = { mind: mind!, token: token! };

    // The tab takes the lease and writes under it.
    const tab = await home.lease(creds.mind, creds.token, { holder: "tab:a" });
    if (!tab.ok) throw new Error("the tab could not take the lease");
    await updateSync(db, mindId, (r) => ({ ...r, epoch: tab.lease.epoch }));
    await appendStep(db, mindId, step("wake", { reason: "scheduled", level: 1, delay_s: 5, home: "tab", epoch: tab.lease.epoch, source: "monolith" }));
    await appendStep(db, mindId, step("thought", { content: "in the tab", source: "monolith" }));
    await engine.push();

    // The tab sleeps past its lease; the server's home takes the next epoch and writes on.
    await sql.query("UPDATE mind_leases SET expires_at = now() - interval '1 second' WHERE mind = $1", [creds.mind]);
    const runner = await acquireLease(sql, creds.mind, "runner:test");
    if (!runner.ok) throw new Error("the runner could not take the lease");
    const server = sqlMindState(sql, creds.mind, parseMindSettings, { epoch: runner.lease.epoch });
    await server.putBlob(mindId, "s1.stdout", "a long output written on the server");
    const serverSteps = [
      step("wake", { reason: "scheduled", level: 1, delay_s: 5, home: "server", epoch: runner.lease.epoch, source: "monolith" }),
      step("shell-output", { stdout: "a long", stderr: "", exit: 0, exec_s: 0.1, timed_out: false, stdout_ref: "blobs/s1.stdout", stdout_bytes: 40, stdout_truncated: true }),
      step("message", { from: "Ada", to: "Gwen", content: "Hello from the server", source: "chat" }),
      step("observation", { decision: "replied", content: "I answered Gwen.", source: "responder", usage: { model: "proxy/m", input_tokens: 10, output_tokens: 5, usd: 0.0025 } }),
    ];
    await server.append({ steps: serverSteps.map((s) => ({ trajId: mindId, step: s })), seen: [] });

    // Meanwhile the sleeping tab wrote on too: refused by the server (fenced), nothing of it accepted.
    const stale = [step("thought", { content: "written asleep 1", source: "monolith" }), step("thought", { content: "written asleep 2", source: "monolith" })];
    for (const s of stale) await appendStep(db, mindId, s);
    const before = await sql.query("SELECT step_id FROM sync_steps ORDER BY seq");
    // The engine sees the server went on without it and does not upload (it must pull first)…
    await expect(engine.push()).rejects.toBeInstanceOf(ServerAheadError);
    // …and an upload under its old epoch, however numbered, is fenced.
    const last = (await syncClient(fetchPort, BASE).state(creds.mind, creds.token)).last_seq;
    const staleWire = stale.map((s, i) => ({ seq: last + i + 1, traj: mindId, json: JSON.stringify(s) }));
    await expect(syncClient(fetchPort, BASE).upload(creds.mind, creds.token, { after: last, steps: staleWire, epoch: tab.lease.epoch })).rejects.toSatisfy((e) => e instanceof ApiRequestError && e.code === "fenced");
    expect(await sql.query("SELECT step_id FROM sync_steps ORDER BY seq")).toEqual(before);

    // The tab takes the mind back: the runner lets go, the tab takes the next epoch and pulls.
    await sql.query("UPDATE mind_leases SET expires_at = now() WHERE mind = $1", [creds.mind]);
    const back = await home.lease(creds.mind, creds.token, { holder: "tab:b" });
    if (!back.ok) throw new Error("the tab could not take the lease back");
    await updateSync(db, mindId, (r) => ({ ...r, epoch: back.lease.epoch }));
    // Every row this browser holds before the pull, and every delete or change of one the pull would make.
    const rowsBefore = await db.steps.toArray();
    const touched: string[] = [];
    db.steps.hook("deleting", (seq) => void touched.push(`delete ${String(seq)}`));
    db.steps.hook("updating", (_changes, seq) => void touched.push(`update ${String(seq)}`));
    let u = 0;
    const uuid = () => `${(0xdddddddd - u++).toString(16)}-0000-4000-8000-cccccccccccc`;
    const pulled = await pullServerSteps(db, mindId, home, creds, { uuid });
    expect(pulled).toMatchObject({ added: 4, setAside: 2, asideTraj: "dddddddd-0000-4000-8000-cccccccccccc" });
    // Nothing deleted or changed: every row is where it was, byte for byte; the pull only appended.
    expect(touched).toEqual([]);
    const rowsAfter = await db.steps.toArray();
    expect(rowsAfter.slice(0, rowsBefore.length)).toEqual(rowsBefore);
    expect(rowsAfter.length).toBe(rowsBefore.length + 4 + 2);
    // The refused rows are recorded as set aside, each with its copy (a new id, the same step) in the child trajectory.
    const records = await asideRows(db, mindId);
    expect(records.map((r) => ({ step_id: r.step_id, from_traj: r.from_traj, traj_id: r.traj_id }))).toEqual(stale.map((st) => ({ step_id: st.step_id, from_traj: mindId, traj_id: pulled.asideTraj })));
    const copies = await db.steps.where("[mind_id+traj_id+seq]").between([mindId, pulled.asideTraj!, 0], [mindId, pulled.asideTraj!, Infinity]).toArray();
    expect(copies.map((c) => c.step_id)).toEqual(records.map((r) => r.copy_id));
    expect(copies.map((c) => JSON.parse(c.json) as Step)).toEqual(stale.map((st, i) => ({ ...st, step_id: records[i]!.copy_id })));
    expect(pulled.digest).toMatchObject({ steps: 4, wakes: 1, replies: 1, usd: 0.0025, firstStep: serverSteps[0]!.step_id, home: "server" });
    expect(await getBlob(db, mindId, "blobs/s1.stdout")).toBe("a long output written on the server");
    // The server's spend counts in this tab's caps.
    expect((await db.usage.where("[mind_id+step_id]").equals([mindId, serverSteps[3]!.step_id]).first())?.usd).toBe(0.0025);
    const aside = await db.trajectories.get([mindId, pulled.asideTraj!]);
    expect(aside).toMatchObject({ name: CUT_OFF_NAME, parent_traj: mindId });

    // Pulling again brings nothing twice.
    expect(await pullServerSteps(db, mindId, home, creds, { uuid: () => "eeeeeeee-0000-4000-8000-cccccccccccc" })).toMatchObject({ added: 0, setAside: 0 });

    // The tab writes on and uploads: the set-aside steps go up as their own trajectory, then the new one.
    await appendStep(db, mindId, step("wake", { reason: "start", level: 0, delay_s: 0, home: "tab", epoch: back.lease.epoch, source: "monolith" }));
    await engine.push();

    const rows = await sql.query<{ seq: string | number; step_id: string; traj: string; json: string }>("SELECT seq, step_id, traj, json FROM sync_steps WHERE mind = $1 ORDER BY seq", [creds.mind]);
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    expect(new Set(rows.map((r) => r.step_id)).size).toBe(rows.length);
    const serverMain = rows.filter((r) => r.traj === mindId).map((r) => r.step_id);
    // The mind's line as every read here reads it (the set-aside rows passed over) is the server's, step for step.
    const localMain = (await tailSteps(db, mindId, 1000)).map((st) => st.step_id);
    expect(localMain).toEqual(serverMain);
    // The set-aside steps went up as their own trajectory: their copies, in order; the refused rows themselves never did.
    expect(rows.filter((r) => r.traj === pulled.asideTraj).map((r) => r.step_id)).toEqual(records.map((r) => r.copy_id));
    expect(rows.filter((r) => stale.some((st) => st.step_id === r.step_id))).toEqual([]);
    const epochs = rows.flatMap((r) => {
      const s = JSON.parse(r.json) as { type: string; epoch?: number };
      return s.type === "wake" && s.epoch !== undefined ? [s.epoch] : [];
    });
    expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
    expect(epochs.length).toBe(3);
  });
});
