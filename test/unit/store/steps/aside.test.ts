// Steps a pull sets aside (lib/store/steps/aside.ts), over fake-indexeddb: the
// rows stay where they were, byte for byte, and nothing is deleted or
// changed; their copies, under new ids that still hold together (a reply to
// one of them names its copy), are appended to the set-aside trajectory; and
// every read of the mind's line or of its whole log passes over the rows left
// in place, so the line reads as one: its tail and count, its steps of a
// kind, search, find, the chat, the settings history, the summaries' stream,
// the timeline, the viewer, the export, and what sync would upload.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReverieDb, StepRow } from "@/lib/store/db/db";
import { createMind, getMind, panicStop, setRunning, updateSettings } from "@/lib/store/minds/minds";
import { asideCopies, asideRows } from "@/lib/store/steps/aside";
import { chatSteps } from "@/lib/store/steps/chat";
import { recentConfigSteps } from "@/lib/store/steps/config-steps";
import { appendStep, countSteps, findSteps, forkTrajectory, lastSeq, placePulled, rowsAfter, searchSteps, stepsOfKind, tailRows, tailSteps } from "@/lib/store/steps/steps";
import { readTimeline } from "@/lib/store/steps/timeline";
import { streamEntriesAfter, streamKeysAfter, streamStepsBetween } from "@/lib/store/derived/tiers";
import { rowSource } from "@/lib/store/view/view";
import { exportEntries } from "@/lib/store/exchange/export";
import { localMind, pendingSteps } from "@/lib/store/sync/sync";
import type { Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";
import { id, stepMaker } from "../../helpers/steps";

let db: ReverieDb;
let mindId: string;
const ASIDE = "aaaaaaaa-0000-4000-8000-000000000000";
const mine = stepMaker({ tail: "111111111111", start: Date.parse("2026-03-01T12:00:00.000Z") });
const servers = stepMaker({ tail: "222222222222", start: Date.parse("2026-03-01T12:00:00.500Z") });
let copyN = 0;
const uuid = () => id(++copyN, "cccccccccccc");

beforeEach(async () => {
  db = await openTestDb("aside");
  mindId = (await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } })).id;
  await setRunning(db, mindId, false);
  copyN = 0;
});

afterEach(async () => {
  await db.delete();
});

const rowOf = (step: Step, traj = mindId): StepRow => ({ step_id: step.step_id, mind_id: mindId, traj_id: traj, type: step.type, json: JSON.stringify(step) });
const ids = (steps: { step_id: string }[]) => steps.map((s) => s.step_id);

/** A mind that wrote `common`, then `stale` the server never took, then pulled `server`'s steps, setting `stale` aside as a pull does. */
async function pulledWithAside() {
  const common = [mine("thought", { content: "before the nap", source: "monolith" })];
  for (const s of common) await appendStep(db, mindId, s);
  const staleFrom = await lastSeq(db, mindId);
  const asleep = mine("message", { from: "bo", to: "Ada", content: "are you there, asleep?", source: "chat" });
  const reply = mine("message", { from: "Ada", to: "bo", content: "asleep: yes", reply_to: asleep.step_id, source: "chat" });
  const thinking = mine("thought", { content: "asleep and thinking", source: "monolith" });
  for (const s of [asleep, reply, thinking]) await appendStep(db, mindId, s);
  // A setting changed while asleep: a config step among the refused ones.
  const settings = (await getMind(db, mindId))!;
  await updateSettings(db, mindId, { model: { ...settings.model, model: "gpt-nap" }, pacing: settings.pacing, max_iterations: settings.max_iterations });
  const stale = await rowsAfter(db, mindId, staleFrom);
  expect(stale).toHaveLength(4);
  const server = [servers("thought", { content: "on the server", source: "monolith" }), servers("message", { from: "cy", to: "Ada", content: "hello server", source: "chat" })];

  const before = await db.steps.toArray();
  const touched: string[] = [];
  db.steps.hook("deleting", (seq) => void touched.push(`delete ${String(seq)}`));
  db.steps.hook("updating", (_c, seq) => void touched.push(`update ${String(seq)}`));
  await forkTrajectory(db, mindId, mindId, { trajId: ASIDE, name: "cut off in this tab" });
  const aside = asideCopies(stale, ASIDE, uuid);
  await db.transaction("rw", [db.steps, db.asides], () => placePulled(db, server.map((s) => rowOf(s)), aside));
  return { common, stale, server, before, touched, copies: aside.copies, staleSteps: stale.map((r) => JSON.parse(r.json) as Step), staleFrom };
}

describe("a pull's set-aside steps", () => {
  it("are never deleted or changed: every row is where it was, byte for byte, and the copies and records are appended", async () => {
    const { before, touched, stale, copies } = await pulledWithAside();
    expect(touched).toEqual([]);
    const after = await db.steps.toArray();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((r) => r.traj_id)).toEqual([mindId, mindId, ASIDE, ASIDE, ASIDE, ASIDE]);
    expect(await asideRows(db, mindId)).toEqual(stale.map((r, i) => ({ mind_id: mindId, seq: r.seq, step_id: r.step_id, from_traj: mindId, traj_id: ASIDE, copy_id: copies[i]!.step_id })));
  });

  it("are copied under new ids that hold together: a reply to one of them names its copy, and the rest of each step is the same", async () => {
    const { staleSteps, copies } = await pulledWithAside();
    const copied = copies.map((c) => JSON.parse(c.json) as Step & { reply_to?: string });
    expect(copied.map((c) => c.step_id)).toEqual([1, 2, 3, 4].map((n) => id(n, "cccccccccccc")));
    expect(copied[1]?.reply_to).toBe(copied[0]?.step_id);
    const apart = ({ step_id: _id, reply_to: _to, ...rest }: Step & { reply_to?: string }) => rest;
    expect(copied.map(apart)).toEqual(staleSteps.map(apart));
  });

  it("are passed over by every read of the mind's line: tail, count, kinds, search, find, chat, settings, the summaries' stream, the timeline", async () => {
    const { common, server, staleSteps, copies } = await pulledWithAside();
    const line = (await tailSteps(db, mindId, 100)).map((s) => s.step_id);
    expect(line.slice(-3)).toEqual(ids([...common, ...server]));
    for (const s of staleSteps) expect(line).not.toContain(s.step_id);
    expect(await countSteps(db, mindId)).toBe(line.length);
    expect(await countSteps(db, mindId, ASIDE)).toBe(4);
    expect(ids(await tailSteps(db, mindId, 10, ASIDE))).toEqual(ids(copies));
    expect(ids((await stepsOfKind(db, mindId, mindId, ["message", "thought"], 10)).map((f) => f.step))).toEqual(ids([...common, ...server]));
    expect(await searchSteps(db, mindId, mindId, "asleep", 10)).toEqual([]);
    expect(ids(await searchSteps(db, mindId, ASIDE, "asleep", 10))).toEqual(ids(copies.slice(0, 3)).reverse());
    expect(await findSteps(db, mindId, staleSteps[0]!.step_id, 5)).toEqual([]);
    expect((await findSteps(db, mindId, copies[0]!.step_id, 5)).map((f) => f.trajId)).toEqual([ASIDE]);
    expect(ids(await chatSteps(db, mindId))).toEqual([server[1]!.step_id]);
    const configs = ids(await recentConfigSteps(db, mindId, 10));
    expect(configs).toHaveLength(1);
    expect(configs).not.toContain(staleSteps[3]!.step_id);
    const keys = await streamKeysAfter(db, mindId, mindId, 0);
    expect(keys).toEqual(await streamEntriesAfter(db, mindId, mindId, 0));
    expect(keys.map((k) => k.step_id)).toEqual(line);
    const between = await streamStepsBetween(db, mindId, mindId, 0, Number.MAX_SAFE_INTEGER);
    for (const s of staleSteps) expect(ids(between)).not.toContain(s.step_id);
    const timeline = ids((await readTimeline(db, mindId, null)).steps);
    for (const s of staleSteps) expect(timeline).not.toContain(s.step_id);
    expect(timeline).toEqual(expect.arrayContaining(ids([...common, ...server, ...copies.slice(0, 3)])));
  });

  it("are passed over by reads of the whole log, the viewer, the export and sync's upload; a link to one finds its copy", async () => {
    const { staleSteps, copies, server, staleFrom } = await pulledWithAside();
    const staleIds = ids(staleSteps);
    const notStale = (rows: { step_id: string }[]) => expect(ids(rows).filter((i) => staleIds.includes(i))).toEqual([]);
    notStale(await tailRows(db, mindId, 100));
    notStale(await rowsAfter(db, mindId, 0));
    expect(ids(await rowsAfter(db, mindId, staleFrom))).toEqual(ids([...server, ...copies]));
    const wire = await localMind(db, mindId).rowsAfter(staleFrom, 100);
    expect(wire.map((r) => r.traj)).toEqual([mindId, mindId, ASIDE, ASIDE, ASIDE, ASIDE]);
    expect(wire.map((r) => (JSON.parse(r.json) as Step).step_id)).toEqual(ids([...server, ...copies]));
    expect(await pendingSteps(db, mindId, staleFrom)).toBe(6);

    const view = rowSource(db, mindId);
    const newest = await view.newest(mindId, 100);
    expect(newest.map((e) => e.id).filter((i) => staleIds.includes(i))).toEqual([]);
    const older: string[] = [];
    await view.older(mindId, Number.MAX_SAFE_INTEGER, (page) => older.push(...page.map((e) => e.id)));
    expect(older).toEqual(newest.map((e) => e.id));
    const hits = await view.search("asleep");
    expect(hits.hits.map((h) => h.traj)).toEqual([ASIDE, ASIDE, ASIDE]);
    const copySeq = (await db.steps.get({ mind_id: mindId, step_id: copies[0]!.step_id }))?.seq;
    expect(await view.locate(staleIds[0]!)).toEqual({ seq: copySeq, traj: ASIDE });

    const files = new Map<string, string>();
    for await (const e of exportEntries(db, mindId)) if (typeof e.data === "string") files.set(e.path, e.data);
    const root = [...files.entries()].find(([p]) => /^[0-9a-f]{8}-ada\/trajectory\.jsonl$/.test(p))?.[1] ?? "";
    const cut = [...files.entries()].find(([p]) => p.endsWith("cut-off-in-this-tab/trajectory.jsonl"))?.[1] ?? "";
    for (const i of staleIds) expect(root).not.toContain(i);
    expect(cut.trimEnd().split("\n")).toEqual(copies.map((c) => c.json));
  });

  it("leave the panic stop's read of the tail working (its transaction holds the records too)", async () => {
    await pulledWithAside();
    await setRunning(db, mindId, true);
    const written = await panicStop(db, mindId);
    expect(written.map((s) => s.type)).toEqual(["error"]);
  });
});
