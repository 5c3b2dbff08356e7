// The mind's state beyond its steps, both ways (lib/sync/client/state-sync.ts),
// between this browser's store (fake-indexeddb) and the real sharing routes
// over a real database, with the server's own home of the mind
// (sqlMindState) changing it as the runner would: workspace, summaries,
// settings without the key, shell and pacing; a file changed on both sides
// kept twice, here and there, under one name.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { sharingServer } from "../../server/sync/harness";
import { acquireLease } from "@/lib/server/state/lease";
import { sqlMindState } from "@/lib/server/state/sql-mind-state";
import { parseMindSettings } from "@/lib/mind/settings/settings";
import type { FileRecord } from "@/lib/mind/state/state";
import { SYNC_LIMITS } from "@/lib/sync/wire";
import { ApiRequestError, type FetchPort } from "@/lib/sync/client/http";
import { syncClient } from "@/lib/sync/client/client";
import { pushMindState } from "@/lib/sync/client/state-sync";
import { STATE_PUSH_MS, syncEngine, wakeSource, type SyncEngine } from "@/lib/sync/client/engine";
import type { ReverieDb } from "@/lib/store/db/db";
import { sealTier } from "@/lib/store/derived/tiers";
import { mindFiles } from "@/lib/store/minds/files";
import { createMind, getMind, savePacingState, saveShellState, updateSettings } from "@/lib/store/minds/minds";
import { appendStep, rowsAfter } from "@/lib/store/steps/steps";
import { stampStep } from "@/lib/trajectory/schema";
import { localState, stateBookKey } from "@/lib/store/sync/state";
import { getSync, localMind, pendingSteps, syncState, updateSync } from "@/lib/store/sync/sync";
import { openTestDb } from "../../helpers/db";
import { FakeClock } from "../../helpers/fake-clock";
import { engines } from "../../server/databases";
import { openaiStyle } from "../../../fixtures/fake-keys";

const BASE = "http://reverie.test";
const HELD_KEY = "held-model-key-0001";
const PATTERN_KEY = openaiStyle("abcdefghijklmnopqrstuvwxyz");
const FILE = 0o100644;
const DIR = 0o40755;
const enc = (s: string) => new TextEncoder().encode(s);
const text = (f: FileRecord | undefined) => (f?.data ? new TextDecoder().decode(f.data) : undefined);
const CONFLICT = /^\/workspace\/notes\.md\.conflict-\d{8}-\d{6}(-\d+)?$/;

describe.each(engines)("the mind's state, tab ↔ server ($name)", (engine) => {
  let db: ReverieDb;
  let sql: Sql;
  let remove: () => Promise<void>;
  let mindId: string;
  let fetchPort: FetchPort;
  /** Summary writes the tab sent (POST …/tiers). */
  let tierWrites = 0;
  let clock: FakeClock;
  let sync: SyncEngine;

  const client = () => syncClient(fetchPort, BASE);
  const server = async () => {
    const rec = await getSync(db, mindId);
    if (!rec?.server_mind || !rec.write_token) throw new Error("not synced");
    return { mind: rec.server_mind, token: rec.write_token };
  };
  /** The server's home of the mind, as the runner holds it. */
  const runner = async () => sqlMindState(sql, (await server()).mind, parseMindSettings);
  const local = () => mindFiles(db, mindId);
  const localFiles = async () => new Map((await local().loadAll()).map((f) => [f.path, f]));
  const serverFiles = async () => new Map((await (await runner()).files.loadAll()).map((f) => [f.path, f]));
  const put = (path: string, body: string, mtime = 1000): FileRecord => ({ path, kind: "file", data: enc(body), mode: FILE, mtime });

  // One database for the file: each test's browser database makes its own server mind.
  beforeAll(async () => {
    if (engine.skip) return;
    const server = await sharingServer(engine);
    ({ sql, remove } = server);
    const handle = server.fetch;
    fetchPort = async (input, init) => {
      const req = new Request(input, init);
      if (req.method === "POST" && new URL(req.url).pathname.endsWith("/tiers")) tierWrites++;
      return handle(req);
    };
  }, 120_000);
  afterAll(async () => {
    await remove?.();
  }, 60_000);

  beforeEach(async (ctx) => {
    if (engine.skip) ctx.skip();
    clock = new FakeClock(Date.parse("2026-03-04T05:06:07Z"));
    db = await openTestDb("state-sync");
    mindId = (await createMind(db, { name: "Ada", persona: `keeps ${PATTERN_KEY} safe`, model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m", apiKey: HELD_KEY } })).id;
    sync = syncEngine({ client: client(), local: localMind(db, mindId), state: syncState(db, mindId), clock, mindState: localState(db, mindId) });
    await local().save([{ path: "/workspace", kind: "dir", mode: DIR, mtime: 900 }, put("/workspace/notes.md", "first notes"), put("/workspace/old.txt", "old"), { path: "/workspace/link", kind: "symlink", target: "notes.md", mode: 0o120777, mtime: 901 }], []);
    await sync.push();
  }, 60_000);
  afterEach(() => {
    db?.close();
  });

  it("push: the workspace, the summaries and the record reach the server, the settings without the key and every secret scrubbed; then nothing is sent twice", async () => {
    const [first, second] = await rowsAfter(db, mindId, 0);
    await sealTier(db, mindId, mindId, { tier: 0, index: 0, content: `saw ${HELD_KEY}`, cites: [], first_step: first!.step_id, last_step: second!.step_id, steps: 2, first_seq: 1, last_seq: 2, model: "openai-compatible/m" });
    await saveShellState(db, mindId, { env: { TOKEN: PATTERN_KEY, A: "1" }, cwd: "/workspace" });
    await savePacingState(db, mindId, { level: 2, ticks: 1, failures: 0 });
    await local().save([put("/workspace/secret.txt", `key=${HELD_KEY}`)], []);

    expect(await sync.pushState()).toEqual({ files: 5, removed: 0, conflicts: [], tiers: 1, record: ["settings", "shell", "pacing"], problems: [] });
    const there = await serverFiles();
    expect([...there.keys()]).toEqual(["/workspace", "/workspace/link", "/workspace/notes.md", "/workspace/old.txt", "/workspace/secret.txt"]);
    expect(text(there.get("/workspace/notes.md"))).toBe("first notes");
    expect(text(there.get("/workspace/secret.txt"))).toBe("key=[redacted]");
    expect(there.get("/workspace/link")).toMatchObject({ kind: "symlink", target: "notes.md" });

    // The settings as stored: no key anywhere, secrets scrubbed, and what the runner parses as the mind's record.
    const [row] = await sql.query<{ settings: string; shell: string; pacing: string }>("SELECT settings, shell, pacing FROM sync_minds WHERE id = $1", [(await server()).mind]);
    expect(row!.settings).not.toContain(HELD_KEY);
    expect(row!.settings).not.toContain("apiKey");
    const mind = (await getMind(db, mindId))!;
    const { shell: _s, pacing_state: _p, ...settings } = mind;
    expect(JSON.parse(row!.settings)).toEqual({ ...settings, persona: "keeps [redacted] safe", model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m" } });
    const record = await (await runner()).record();
    expect(record).toEqual({ settings: { ...settings, persona: "keeps [redacted] safe", model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m" } }, shell: { env: { TOKEN: "[redacted]", A: "1" }, cwd: "/workspace" }, pacing: { level: 2, ticks: 1, failures: 0 } });
    expect(await (await runner()).tiers(mindId).list()).toEqual([{ tier: 0, index: 0, content: "saw [redacted]", cites: [], first_step: first!.step_id, last_step: second!.step_id, steps: 2, first_seq: first!.seq, last_seq: second!.seq }]);

    expect(await sync.pushState()).toEqual({ files: 0, removed: 0, conflicts: [], tiers: 0, record: [], problems: [] });
    // A file touched but not changed is not sent either.
    await local().save([put("/workspace/notes.md", "first notes", 5000)], []);
    expect((await sync.pushState()).files).toBe(0);
    await local().save([], ["/workspace/old.txt"]);
    expect(await sync.pushState()).toMatchObject({ files: 0, removed: 1 });
    expect((await serverFiles()).has("/workspace/old.txt")).toBe(false);
  });

  it("a summary over steps the server does not hold yet waits, is sent again, and is sealed once they are uploaded; one that never can stops being sent", async () => {
    const step = (n: number) => stampStep({ type: "thought", content: `later ${n}`, source: "inner" }, { id: `0f0f0f0f-0000-4000-8000-00000000001${n}`, now: clock.now() });
    const [a, b] = [step(1), step(2)];
    const seqA = await appendStep(db, mindId, a);
    const seqB = await appendStep(db, mindId, b);
    await sealTier(db, mindId, mindId, { tier: 0, index: 0, content: "two later thoughts", cites: [], first_step: a.step_id, last_step: b.step_id, steps: 2, first_seq: seqA, last_seq: seqB, model: "openai-compatible/m" });
    // Summed here before its steps went up: the server does not seal it.
    expect((await sync.pushState()).tiers).toBe(0);
    expect(await (await runner()).tiers(mindId).list()).toEqual([]);
    expect((await sync.pushState()).tiers).toBe(0);
    await sync.push();
    expect((await sync.pushState()).tiers).toBe(1);
    expect(await (await runner()).tiers(mindId).list()).toMatchObject([{ index: 0, first_step: a.step_id, last_step: b.step_id }]);
    // Steps the server will never take (here: ids it never gets): sent for a while, then left to the server's own summarizer.
    await sealTier(db, mindId, mindId, { tier: 0, index: 1, content: "never there", cites: [], first_step: "0f0f0f0f-0000-4000-8000-0000000000aa", last_step: "0f0f0f0f-0000-4000-8000-0000000000ab", steps: 2, first_seq: 900, last_seq: 901, model: "openai-compatible/m" });
    const sent: number[] = [];
    for (let i = 0; i < 15; i++) {
      const before = tierWrites;
      await sync.pushState();
      sent.push(tierWrites - before);
    }
    expect(sent).toEqual([...Array(12).fill(1), 0, 0, 0]);
    expect(await (await runner()).tiers(mindId).list()).toHaveLength(1);
  });

  it("a file over the size limit, or a binary one holding the key, stays here and says so", async () => {
    const big = new Uint8Array(SYNC_LIMITS.fileBytes + 1).fill(65);
    const binary = new Uint8Array([0xff, 0xfe, ...enc(HELD_KEY), 0x00]);
    await local().save([{ path: "/workspace/big.bin", kind: "file", data: big, mode: FILE, mtime: 1 }, { path: "/workspace/key.bin", kind: "file", data: binary, mode: FILE, mtime: 1 }], []);
    const res = await sync.pushState();
    expect(res.problems).toEqual([`/workspace/big.bin is over ${SYNC_LIMITS.fileBytes} bytes and stays in this browser`, "/workspace/key.bin holds a model key and stays in this browser"]);
    expect((await getSync(db, mindId))?.state_error).toBe(res.problems.join("; "));
    const there = await serverFiles();
    expect(there.has("/workspace/big.bin") || there.has("/workspace/key.bin")).toBe(false);
    expect(there.has("/workspace/notes.md")).toBe(true);
  });

  it("round trip: what the runner changed comes here (files, removals, summaries, shell, pacing), with this browser's secrets kept; nothing unchanged moves", async () => {
    await saveShellState(db, mindId, { env: { TOKEN: PATTERN_KEY, A: "1" }, cwd: "/workspace" });
    await sync.pushState();
    const home = await runner();
    await home.files.save([put("/workspace/notes.md", "the runner's notes", 2000), put("/workspace/runner.txt", "new on the server", 2001)], ["/workspace/old.txt"]);
    await home.saveShellState({ env: { TOKEN: "[redacted]", A: "2" }, cwd: "/workspace/mem" });
    await home.savePacing({ level: 4, ticks: 2, failures: 1 });
    const [first, second] = await rowsAfter(db, mindId, 0);
    await home.tiers(mindId).seal({ tier: 0, index: 0, content: "summed on the server", cites: [], first_step: first!.step_id, last_step: second!.step_id, steps: 2, first_seq: 900, last_seq: 901 });

    expect(await sync.pullState()).toEqual({ files: 2, removed: 1, conflicts: [], tiers: 1, record: ["shell", "pacing"], problems: [] });
    const here = await localFiles();
    expect(text(here.get("/workspace/notes.md"))).toBe("the runner's notes");
    expect(here.get("/workspace/notes.md")?.mtime).toBe(2000);
    expect(text(here.get("/workspace/runner.txt"))).toBe("new on the server");
    expect(here.has("/workspace/old.txt")).toBe(false);
    expect(here.get("/workspace/link")).toMatchObject({ kind: "symlink", target: "notes.md" });
    const mind = (await getMind(db, mindId))!;
    expect(mind.shell).toEqual({ env: { TOKEN: PATTERN_KEY, A: "2" }, cwd: "/workspace/mem" });
    expect(mind.pacing_state).toEqual({ level: 4, ticks: 2, failures: 1 });
    expect(mind.model.apiKey).toBe(HELD_KEY);
    // Sealed here with this browser's own seqs.
    expect(await localState(db, mindId).tiers(mindId)).toEqual([{ tier: 0, index: 0, content: "summed on the server", cites: [], first_step: first!.step_id, last_step: second!.step_id, steps: 2 }]);
    expect((await db.tiers.toArray())[0]).toMatchObject({ first_seq: first!.seq, last_seq: second!.seq });

    expect(await sync.pullState()).toEqual({ files: 0, removed: 0, conflicts: [], tiers: 0, record: [], problems: [] });
    expect(await sync.pushState()).toEqual({ files: 0, removed: 0, conflicts: [], tiers: 0, record: [], problems: [] });
  });

  it("changed on both sides, pulled: both kept, the server's at its path and this browser's beside it, and then on the server too", async () => {
    await sync.pushState();
    await local().save([put("/workspace/notes.md", "the tab's edit", 3000)], []);
    await (await runner()).files.save([put("/workspace/notes.md", "the runner's edit", 3001)], []);

    const pulled = await sync.pullState();
    expect(pulled.conflicts).toEqual([{ path: "/workspace/notes.md", kept_as: expect.stringMatching(CONFLICT) }]);
    const keptAs = pulled.conflicts[0]!.kept_as;
    expect(keptAs).toBe("/workspace/notes.md.conflict-20260304-050607");
    const here = await localFiles();
    expect(text(here.get("/workspace/notes.md"))).toBe("the runner's edit");
    expect(text(here.get(keptAs))).toBe("the tab's edit");

    expect(await sync.pushState()).toMatchObject({ files: 1, conflicts: [] });
    const there = await serverFiles();
    expect(text(there.get("/workspace/notes.md"))).toBe("the runner's edit");
    expect(text(there.get(keptAs))).toBe("the tab's edit");
    expect(await sync.pullState()).toMatchObject({ files: 0, conflicts: [] });
  });

  it("changed on both sides, pushed first: the server keeps both, the pull names them alike here, and no copy is made twice", async () => {
    await sync.pushState();
    await local().save([put("/workspace/notes.md", "the tab's edit", 3000)], []);
    await (await runner()).files.save([put("/workspace/notes.md", "the runner's edit", 3001)], []);

    const pushed = await sync.pushState();
    expect(pushed.conflicts).toEqual([{ path: "/workspace/notes.md", kept_as: expect.stringMatching(CONFLICT) }]);
    const keptAs = pushed.conflicts[0]!.kept_as;
    let there = await serverFiles();
    expect(text(there.get("/workspace/notes.md"))).toBe("the runner's edit");
    expect(text(there.get(keptAs))).toBe("the tab's edit");
    // Pushed again before any pull: the same copy is not kept a second time.
    expect(await sync.pushState()).toMatchObject({ files: 0, conflicts: [] });

    expect((await sync.pullState()).conflicts).toEqual([{ path: "/workspace/notes.md", kept_as: keptAs }]);
    const here = await localFiles();
    expect(text(here.get("/workspace/notes.md"))).toBe("the runner's edit");
    expect(text(here.get(keptAs))).toBe("the tab's edit");
    expect(await sync.pushState()).toMatchObject({ files: 0, conflicts: [] });
    there = await serverFiles();
    expect([...there.keys()].filter((p) => CONFLICT.test(p))).toEqual([keptAs]);
    expect([...here.keys()].sort()).toEqual([...there.keys()].sort());
  });

  it("removed on the server but changed here: kept here, and sent back; removed here but changed there: the server's copy comes back", async () => {
    await sync.pushState();
    await local().save([put("/workspace/notes.md", "still needed", 3000)], ["/workspace/old.txt"]);
    await (await runner()).files.save([put("/workspace/old.txt", "the runner's use of it", 3001)], ["/workspace/notes.md"]);
    // The removal here is stale on the server: nothing removed there.
    expect(await sync.pushState()).toMatchObject({ removed: 0, files: 1 });
    expect(text((await serverFiles()).get("/workspace/old.txt"))).toBe("the runner's use of it");
    expect(text((await serverFiles()).get("/workspace/notes.md"))).toBe("still needed");
    await sync.pullState();
    const here = await localFiles();
    expect(text(here.get("/workspace/old.txt"))).toBe("the runner's use of it");
    expect(text(here.get("/workspace/notes.md"))).toBe("still needed");
  });

  it("settings: a field the server changed comes here with the key kept; one changed here goes there; the key never leaves", async () => {
    await sync.pushState();
    const { mind: serverMind } = await server();
    const [row] = await sql.query<{ settings: string }>("SELECT settings FROM sync_minds WHERE id = $1", [serverMind]);
    await sql.query("UPDATE sync_minds SET settings = $2 WHERE id = $1", [serverMind, JSON.stringify({ ...JSON.parse(row!.settings), running: false, max_iterations: 7 })]);
    await updateSettings(db, mindId, { model: (await getMind(db, mindId))!.model, pacing: (await getMind(db, mindId))!.pacing, max_iterations: 9 });

    expect((await sync.pullState()).record).toEqual(["settings"]);
    const mind = (await getMind(db, mindId))!;
    // The field only the server changed comes; the one changed on both sides stays this browser's (its human's latest), the secrets and key too.
    expect(mind).toMatchObject({ running: false, max_iterations: 9, persona: `keeps ${PATTERN_KEY} safe`, model: { apiKey: HELD_KEY } });
    expect((await sync.pullState()).record).toEqual([]);
    expect((await sync.pushState()).record).toEqual(["settings"]);
    const [after] = await sql.query<{ settings: string }>("SELECT settings FROM sync_minds WHERE id = $1", [serverMind]);
    expect(JSON.parse(after!.settings)).toMatchObject({ running: false, max_iterations: 9, persona: "keeps [redacted] safe" });
    expect(after!.settings).not.toContain(HELD_KEY);
    expect(after!.settings).not.toContain("apiKey");
  });

  it("a stale epoch: the push is refused as fenced and nothing is written, here or there", async () => {
    const { mind: serverMind, token } = await server();
    await acquireLease(sql, serverMind, "tab-1");
    await sql.query("UPDATE mind_leases SET expires_at = now() - interval '1 second' WHERE mind = $1", [serverMind]);
    await acquireLease(sql, serverMind, "runner-a");
    const bookBefore = await db.settings.get(stateBookKey(mindId));
    const push = pushMindState({ client: client(), local: localState(db, mindId), server: { mind: serverMind, token, epoch: 1 }, clock });
    await expect(push).rejects.toMatchObject({ status: 409, code: "fenced" });
    await expect(push).rejects.toBeInstanceOf(ApiRequestError);
    expect((await serverFiles()).size).toBe(0);
    expect(await db.settings.get(stateBookKey(mindId))).toEqual(bookBefore);
    expect((await pushMindState({ client: client(), local: localState(db, mindId), server: { mind: serverMind, token, epoch: 2 }, clock })).files).toBe(4);
  });

  it("the engine pushes the state with its steps while keep-alive is on, and only then", async () => {
    const wakes = wakeSource();
    const stop = new AbortController();
    const running = sync.run(stop.signal, wakes);
    // A pass for a new step, keep-alive off: the steps go, the state does not.
    await appendStep(db, mindId, stampStep({ type: "thought", content: "a new thought", source: "inner" }, { id: "0f0f0f0f-0000-4000-8000-00000000000a", now: clock.now() }));
    wakes.nudge();
    await vi.waitFor(async () => {
      if (clock.sleeping.includes(60)) clock.advance(60);
      expect(await pendingSteps(db, mindId, (await getSync(db, mindId))?.last_seq ?? 0)).toBe(0);
      expect(clock.sleeping).toEqual([30_000]);
    });
    expect((await serverFiles()).size).toBe(0);
    await updateSync(db, mindId, (r) => ({ ...r, keep_alive: true }));
    wakes.nudge();
    await vi.waitFor(async () => {
      if (clock.sleeping.length) clock.advanceToNextWake();
      expect((await serverFiles()).size).toBe(4);
    });
    // At most every few seconds: a change waits for the next state pass, which comes without a nudge.
    await local().save([put("/workspace/notes.md", "later", 4000)], []);
    await vi.waitFor(async () => {
      if (clock.sleeping.length) clock.advanceToNextWake();
      expect(text((await serverFiles()).get("/workspace/notes.md"))).toBe("later");
    });
    stop.abort();
    await running;
  });

  it("the engine pushes the state while an operator's invite is live too (their page reads the memories and goals from the server's copy), and not for a guest's or a member's", async () => {
    const invite = (id: string, role: "guest" | "member" | "operator", revoked_at?: string) => ({
      id,
      kind: "invite" as const,
      role,
      url: `${BASE}/s/${id}`,
      at_seq: null,
      created_at: new Date(clock.now()).toISOString(),
      ...(revoked_at ? { revoked_at } : {}),
    });
    /** Let the engine's passes run until the clock is `ms` further on. */
    const passFor = async (ms: number) => {
      const until = clock.now() + ms;
      await vi.waitFor(() => {
        if (clock.sleeping.length) clock.advanceToNextWake();
        expect(clock.now()).toBeGreaterThanOrEqual(until);
      }, { timeout: 20_000, interval: 5 });
    };
    await updateSync(db, mindId, (r) => ({ ...r, links: [invite("g", "guest"), invite("m", "member")] }));
    const wakes = wakeSource();
    const stop = new AbortController();
    const running = sync.run(stop.signal, wakes);
    // A guest's and a member's invite: the inbox is read every second and the steps go, the state does not.
    await appendStep(db, mindId, stampStep({ type: "thought", content: "a new thought", source: "inner" }, { id: "0f0f0f0f-0000-4000-8000-00000000000b", now: clock.now() }));
    wakes.nudge();
    await passFor(3 * STATE_PUSH_MS);
    expect(await pendingSteps(db, mindId, (await getSync(db, mindId))?.last_seq ?? 0)).toBe(0);
    expect((await serverFiles()).size).toBe(0);
    // An operator's: the workspace follows, at most every few seconds.
    await updateSync(db, mindId, (r) => ({ ...r, links: [...r.links, invite("o", "operator")] }));
    await vi.waitFor(async () => {
      if (clock.sleeping.length) clock.advanceToNextWake();
      expect((await serverFiles()).size).toBe(4);
    });
    await local().save([put("/workspace/notes.md", "later", 4000)], []);
    await vi.waitFor(async () => {
      if (clock.sleeping.length) clock.advanceToNextWake();
      expect(text((await serverFiles()).get("/workspace/notes.md"))).toBe("later");
    });
    // Revoked, it no longer draws the workspace to the server.
    await updateSync(db, mindId, (r) => ({ ...r, links: r.links.map((l) => (l.id === "o" ? { ...l, revoked_at: new Date(clock.now()).toISOString() } : l)) }));
    await passFor(STATE_PUSH_MS);
    await local().save([put("/workspace/notes.md", "only here", 5000)], []);
    await passFor(3 * STATE_PUSH_MS);
    expect(text((await serverFiles()).get("/workspace/notes.md"))).toBe("later");
    stop.abort();
    await running;
  });
});
