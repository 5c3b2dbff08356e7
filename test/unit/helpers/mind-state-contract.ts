// What every home of a mind's state (lib/mind/state/state.ts's MindState) keeps, as
// one suite each home runs: `mindStateContract("memory", async (mindId) => new
// MemoryMindState(mindId, record))`. The suite reads and writes only through
// the MindState interface, so a home over IndexedDB or SQL runs it unchanged.
//
// `make(mindId)` returns a fresh state for a mind of that id (its root
// trajectory's id is the mind's), holding the mind's record (`record()` is
// defined), and nothing else. Each test makes its own minds, with ids never
// used before, so homes that share one database (fake-indexeddb) need no
// clearing between tests; `close`, when given, is called after each test.
import { afterEach, describe, expect, it } from "vitest";
import type { SealedTier } from "../../../lib/context/sealed-past";
import { InvalidStepError, type FileRecord, type MindState, type SpendEntry, type StateBatch } from "../../../lib/mind/state/state";
import { parseStep, type Step } from "../../../lib/trajectory/schema";
import { id } from "./steps";

export type ContractState = MindState & { close?: () => Promise<void> | void };

const START = Date.parse("2025-01-01T00:00:00.000Z");

/** The time of step `n`: a second apart. */
export const at = (n: number) => START + n * 1000;

/** A step of id `id(n, tail)` at time `at(n)`, checked against the schema. */
function step(n: number, tail: string, type: string, fields: Record<string, unknown> = {}): Step {
  const parsed = parseStep({ step_id: id(n, tail), ts: new Date(at(n)).toISOString(), type, ...fields });
  if (!parsed.ok) throw new Error(`bad test step: ${parsed.error}`);
  return parsed.step;
}

const R = "aaaaaaaaaaaa"; // the root's steps
const C = "bbbbbbbbbbbb"; // a child's
const thought = (n: number, content: string, tail = R) => step(n, tail, "thought", { content });
const usage = (usd?: number) => ({ input_tokens: 100, output_tokens: 10, ...(usd === undefined ? {} : { usd }) });
/** A step the schemas refuse: a thought whose content is a number (built past the schema on purpose). */
const invalid = (n: number) => ({ ...thought(n, "x"), content: 42 }) as unknown as Step;

const batch = (steps: [string, Step][]): StateBatch => ({ steps: steps.map(([trajId, s]) => ({ trajId, step: s })), seen: [] });
const byId = <T extends { step: Step }>(found: T[]) => [...found].sort((x, y) => (x.step.step_id < y.step.step_id ? -1 : 1));
const byTs = (spend: SpendEntry[]) => spend.map(({ ts, usd }) => ({ ts, usd })).sort((x, y) => x.ts - y.ts);

const tier = (t: number, index: number, content: string, extra: Partial<SealedTier> = {}): SealedTier => ({
  tier: t,
  index,
  content,
  cites: [],
  first_step: id(1000 + index, R),
  last_step: id(1009 + index, R),
  steps: 10,
  ...extra,
});

const file = (path: string, fields: Partial<FileRecord> = {}): FileRecord => ({ path, kind: "file", data: new TextEncoder().encode(path), mode: 0o644, mtime: 1_700_000_000_000, ...fields });
const byPath = (files: FileRecord[]) => [...files].sort((x, y) => (x.path < y.path ? -1 : 1));

/** A home's mind record as plain fields (a home's Settings type is its own). */
const recordOf = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? { ...v } : {});

export function mindStateContract(name: string, make: (mindId: string) => Promise<ContractState>): void {
  describe(`MindState contract: ${name}`, () => {
    let minds = 0;
    const made: ContractState[] = [];
    afterEach(async () => {
      for (const s of made.splice(0)) await s.close?.();
    });

    /** A fresh mind (its root trajectory is `state.mindId`) and, forked from its root, a child trajectory. */
    async function fresh(opts: { child?: boolean } = {}) {
      const mindId = id(0x5000 + ++minds, "dddddddddddd");
      const state = await make(mindId);
      made.push(state);
      const child = id(0x6000 + minds, "eeeeeeeeeeee");
      if (opts.child) await state.fork(mindId, { trajId: child, name: "child" });
      return { state, root: mindId, child };
    }

    it("a fresh state is its mind's, and holds nothing yet", async () => {
      const { state, root } = await fresh();
      expect(state.mindId).toBe(root);
      expect(await state.tail(root, 10)).toEqual([]);
      expect(await state.count(root)).toBe(0);
      expect(await state.find("0", 10)).toEqual([]);
      expect(await state.tiers(root).keysAfter(0)).toEqual([]);
      expect(await state.tiers(root).list()).toEqual([]);
      expect(await state.spendSince(0)).toEqual([]);
      expect(await state.files.loadAll()).toEqual([]);
    });

    it("a batch is stored in its order; seqs grow in append order across the mind's trajectories", async () => {
      const { state, root, child } = await fresh({ child: true });
      const [a, b, c] = [thought(1, "a"), thought(3, "b"), thought(5, "c")];
      const [x, y] = [thought(2, "x", C), thought(4, "y", C)];
      await state.append(batch([[root, a], [child, x], [root, b]]));
      await state.append(batch([[child, y], [root, c]]));
      expect(await state.tail(root, 10)).toEqual([a, b, c]);
      expect(await state.tail(child, 10)).toEqual([x, y]);
      const rootKeys = await state.tiers(root).keysAfter(0);
      const childKeys = await state.tiers(child).keysAfter(0);
      expect(rootKeys).toEqual([a, b, c].map((s) => ({ seq: expect.any(Number), type: "thought", step_id: s.step_id })));
      expect(childKeys).toEqual([x, y].map((s) => ({ seq: expect.any(Number), type: "thought", step_id: s.step_id })));
      const merged = [...rootKeys, ...childKeys].sort((p, q) => p.seq - q.seq);
      expect(merged.map((k) => k.step_id)).toEqual([a, x, b, y, c].map((s) => s.step_id));
      expect(new Set(merged.map((k) => k.seq)).size).toBe(5);
      expect(merged.every((k) => Number.isInteger(k.seq) && k.seq > 0)).toBe(true);
      // After a seq: only what came later.
      expect((await state.tiers(root).keysAfter(rootKeys[1]!.seq)).map((k) => k.step_id)).toEqual([c.step_id]);
      expect(await state.tiers(root).keysAfter(rootKeys[2]!.seq)).toEqual([]);
    });

    it("an invalid step is refused with the steps after it; the ones before it are stored, with their usage (InvalidStepError.stored)", async () => {
      const { state, root } = await fresh();
      const a = step(1, R, "reasoning", { thought: "a", cmd: "echo a", usage: usage(0.5) });
      const c = step(3, R, "reasoning", { thought: "c", cmd: "echo c", usage: usage(0.25) });
      const refused = await state.append(batch([[root, a], [root, invalid(2)], [root, c]])).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(InvalidStepError);
      expect((refused as InvalidStepError).stored).toBe(1);
      expect(await state.tail(root, 10)).toEqual([a]);
      expect(await state.count(root)).toBe(1);
      expect((await state.tiers(root).keysAfter(0)).map((k) => k.step_id)).toEqual([a.step_id]);
      expect(byTs(await state.spendSince(0))).toEqual([{ ts: at(1), usd: 0.5 }]);
      // Refused first: nothing of the batch is stored.
      const first = await state.append(batch([[root, invalid(4)], [root, thought(5, "after")]])).then(
        () => null,
        (e: unknown) => e,
      );
      expect(first).toBeInstanceOf(InvalidStepError);
      expect((first as InvalidStepError).stored).toBe(0);
      expect(await state.tail(root, 10)).toEqual([a]);
      // And the state takes the next batch as ever.
      const d = thought(6, "d");
      await state.append(batch([[root, d]]));
      expect(await state.tail(root, 10)).toEqual([a, d]);
    });

    it("steps are stored as JSON: an undefined field vanishes, and the state keeps its own copy", async () => {
      const { state, root } = await fresh();
      const s = { ...thought(1, "as written"), note: undefined } as Step;
      const json = JSON.parse(JSON.stringify(s)) as Step;
      expect("note" in s).toBe(true);
      await state.append(batch([[root, s]]));
      (s as { content: string }).content = "changed after";
      const [stored] = await state.tail(root, 1);
      expect(stored).toStrictEqual(json);
      expect("note" in stored!).toBe(false);
      expect(await state.find(s.step_id, 1)).toStrictEqual([{ step: json, trajId: root }]);
    });

    it("tail and count read one trajectory: the newest n, oldest first", async () => {
      const { state, root, child } = await fresh({ child: true });
      expect(await state.tail(child, 5)).toEqual([]);
      expect(await state.count(child)).toBe(0);
      const [a, b, c] = [thought(1, "a"), thought(2, "b"), thought(4, "c")];
      const x = thought(3, "x", C);
      await state.append(batch([[root, a], [root, b], [child, x], [root, c]]));
      expect(await state.tail(root, 2)).toEqual([b, c]);
      expect(await state.tail(root, 3)).toEqual([a, b, c]);
      expect(await state.tail(root, 100)).toEqual([a, b, c]);
      expect(await state.tail(root, 0)).toEqual([]);
      expect(await state.tail(child, 100)).toEqual([x]);
      expect(await state.count(root)).toBe(3);
      expect(await state.count(child)).toBe(1);
    });

    it("find spans the mind's trajectories, by id or prefix in any case, at most `limit`", async () => {
      const { state, root, child } = await fresh({ child: true });
      const [a, b, d] = [thought(0xabc1, "a"), thought(0xabc2, "b"), thought(0xdef1, "d")];
      const x = thought(0xabc3, "x", C);
      await state.append(batch([[root, a], [root, b], [child, x], [root, d]]));
      expect(byId(await state.find("0000ABC", 10))).toEqual([
        { step: a, trajId: root },
        { step: b, trajId: root },
        { step: x, trajId: child },
      ]);
      expect(await state.find("0000abc", 2)).toEqual([
        { step: a, trajId: root },
        { step: b, trajId: root },
      ]);
      expect(await state.find(d.step_id.toUpperCase(), 10)).toEqual([{ step: d, trajId: root }]);
      expect(await state.find(x.step_id, 10)).toEqual([{ step: x, trajId: child }]);
      expect(await state.find("0000abc4", 10)).toEqual([]);
    });

    it("search finds one trajectory's steps by their text, in any case, newest first, at most `limit`", async () => {
      const { state, root, child } = await fresh({ child: true });
      const pie = thought(1, "Apple pie");
      const banana = thought(2, "banana");
      const cmd = step(3, R, "reasoning", { thought: "look", cmd: "grep apple notes.md" });
      const day = thought(4, "an APPLE a day");
      const msg = step(5, R, "message", { from: "ada", to: "Reverie", content: "apple?" });
      const theirs = thought(6, "apple in the child", C);
      await state.append(batch([[root, pie], [root, banana], [root, cmd], [root, day], [root, msg], [child, theirs]]));
      expect(await state.search(root, "apple", 10)).toEqual([msg, day, cmd, pie]);
      expect(await state.search(root, "APPLE", 2)).toEqual([msg, day]);
      expect(await state.search(child, "Apple", 10)).toEqual([theirs]);
      expect(await state.search(root, "cherry", 10)).toEqual([]);
    });

    it("ofKind reads one trajectory's steps of the given kinds, oldest first, in pages after a seq, however far back", async () => {
      const { state, root, child } = await fresh({ child: true });
      const alarm = (n: number, op: string, tail = R) => step(n, tail, "alarm", op === "set" ? { op, alarm: id(n, tail), at: new Date(at(n + 3600)).toISOString(), note: `note ${n}` } : { op, alarm: id(1, R) });
      const set = alarm(1, "set");
      const message = step(2, R, "message", { from: "ada", to: "Reverie", content: "hi" });
      // The alarm is far back: a long stretch of other steps after it.
      const filler = Array.from({ length: 60 }, (_, i) => thought(10 + i, `filler ${i}`));
      const theirs = alarm(80, "set", C);
      const rang = alarm(90, "rang");
      await state.append(batch([[root, set], [root, message], ...filler.map((f): [string, Step] => [root, f]), [child, theirs], [root, rang]]));
      const all = await state.ofKind(root, ["alarm"], 100);
      expect(all.map((s) => s.step)).toEqual([set, rang]);
      expect(all[0]!.seq).toBeLessThan(all[1]!.seq);
      expect((await state.ofKind(root, ["alarm", "message"], 100)).map((s) => s.step)).toEqual([set, message, rang]);
      // Pages: at most `limit`, then after the last one's seq.
      const first = await state.ofKind(root, ["alarm", "message"], 2);
      expect(first.map((s) => s.step)).toEqual([set, message]);
      expect((await state.ofKind(root, ["alarm", "message"], 2, first[1]!.seq)).map((s) => s.step)).toEqual([rang]);
      expect(await state.ofKind(root, ["alarm", "message"], 2, all[1]!.seq)).toEqual([]);
      expect((await state.ofKind(child, ["alarm"], 10)).map((s) => s.step)).toEqual([theirs]);
      expect(await state.ofKind(root, ["idle"], 10)).toEqual([]);
      expect(await state.ofKind(root, ["alarm"], 0)).toEqual([]);
    });

    it("fork registers a child of a known trajectory, once", async () => {
      const { state, root, child } = await fresh();
      await state.fork(root, { trajId: child, name: "child" });
      await expect(state.fork(root, { trajId: child, name: "again" })).rejects.toThrow();
      await expect(state.fork(id(0x7777, "eeeeeeeeeeee"), { trajId: id(0x7778, "eeeeeeeeeeee"), name: "orphan" })).rejects.toThrow();
      // A child's child.
      const grandchild = id(0x7779, "eeeeeeeeeeee");
      await state.fork(child, { trajId: grandchild, name: "grandchild" });
      const g = thought(1, "deep", C);
      await state.append(batch([[grandchild, g]]));
      expect(await state.tail(grandchild, 5)).toEqual([g]);
      expect(await state.count(child)).toBe(0);
      expect(await state.count(root)).toBe(0);
      expect(await state.find(g.step_id, 5)).toEqual([{ step: g, trajId: grandchild }]);
    });

    it("a blob is written once, and read by its ref `blobs/<name>` in its own trajectory", async () => {
      const { state, root, child } = await fresh({ child: true });
      await state.putBlob(root, "x.stdout", "big");
      expect(await state.blob(root, "blobs/x.stdout")).toBe("big");
      await expect(state.putBlob(root, "x.stdout", "again")).rejects.toThrow();
      expect(await state.blob(root, "blobs/x.stdout")).toBe("big");
      expect(await state.blob(root, "blobs/y.stdout")).toBeUndefined();
      // The child's blobs are its own.
      expect(await state.blob(child, "blobs/x.stdout")).toBeUndefined();
      await state.putBlob(child, "x.stdout", "small");
      expect(await state.blob(child, "blobs/x.stdout")).toBe("small");
      expect(await state.blob(root, "blobs/x.stdout")).toBe("big");
    });

    it("a summary is sealed once (then: already-sealed), listed finest tier first, per trajectory; an invalid one is refused", async () => {
      const { state, root, child } = await fresh({ child: true });
      const tiers = state.tiers(root);
      expect(await tiers.seal(tier(1, 0, "coarse"))).toBe("sealed");
      expect(await tiers.seal(tier(0, 1, "second", { cites: [id(1001, R)], first_seq: 11, last_seq: 20 }))).toBe("sealed");
      expect(await tiers.seal(tier(0, 0, "first"))).toBe("sealed");
      expect(await tiers.seal(tier(0, 0, "rewritten"))).toBe("already-sealed");
      const listed = [tier(0, 0, "first"), tier(0, 1, "second", { cites: [id(1001, R)], first_seq: 11, last_seq: 20 }), tier(1, 0, "coarse")];
      expect(await tiers.list()).toEqual(listed);
      // Refused: an empty summary, a negative tier. Nothing is stored, and the block can still be sealed.
      await expect(tiers.seal(tier(0, 2, ""))).rejects.toThrow();
      await expect(tiers.seal(tier(-1, 2, "negative"))).rejects.toThrow();
      expect(await tiers.list()).toEqual(listed);
      expect(await tiers.seal(tier(0, 2, "third"))).toBe("sealed");
      expect((await tiers.list()).map((t) => t.content)).toEqual(["first", "second", "third", "coarse"]);
      // Another trajectory's summaries are its own.
      expect(await state.tiers(child).list()).toEqual([]);
      expect(await state.tiers(child).seal(tier(0, 0, "child's"))).toBe("sealed");
      expect(await state.tiers(child).list()).toEqual([tier(0, 0, "child's")]);
      expect((await tiers.list())[0]).toEqual(tier(0, 0, "first"));
    });

    it("tiers(traj).steps(first, last) are the trajectory's in-stream steps with seq in [first, last], oldest first", async () => {
      const { state, root, child } = await fresh({ child: true });
      const wake = step(1, R, "wake", { reason: "start", level: 0, delay_s: 0 });
      const t1 = thought(2, "one");
      const marker = step(3, R, "trajectory", { name: "root" });
      const x = thought(4, "child's", C);
      const r = step(5, R, "reasoning", { thought: "r", cmd: "ls" });
      const run = step(6, R, "shellm-run", { model: "m" });
      const t2 = thought(7, "two");
      await state.append(batch([[root, wake], [root, t1], [root, marker], [child, x], [root, r], [root, run], [root, t2]]));
      const keys = await state.tiers(root).keysAfter(0);
      // The index holds every step of the trajectory, in the stream or not.
      expect(keys.map((k) => [k.type, k.step_id])).toEqual([wake, t1, marker, r, run, t2].map((s) => [s.type, s.step_id]));
      const seq = (s: Step) => keys.find((k) => k.step_id === s.step_id)!.seq;
      const steps = state.tiers(root).steps;
      expect(await steps(seq(t1), seq(r))).toEqual([t1, r]);
      expect(await steps(seq(wake), seq(t2))).toEqual([t1, r, t2]);
      expect(await steps(seq(marker), seq(run))).toEqual([r]);
      expect(await steps(seq(wake), seq(wake))).toEqual([]);
      expect(await steps(seq(t2) + 1, seq(t2) + 100)).toEqual([]);
      expect(await state.tiers(child).steps(0, seq(t2))).toEqual([x]);
    });

    it("spendSince is the cost of each stored model call (usage on reasoning, thought, observation and error steps) from a time on, across trajectories", async () => {
      const { state, root, child } = await fresh({ child: true });
      await state.append(
        batch([
          [root, step(1, R, "reasoning", { thought: "r", cmd: "ls", usage: usage(0.5) })],
          [root, step(2, R, "thought", { content: "t", usage: usage() })], // no price known: 0
          [root, step(3, R, "message", { from: "ada", to: "Reverie", content: "hi", usage: usage(9) })], // not a call's step
          [root, step(4, R, "final", { content: "done", usage: usage(9) })],
          [child, step(5, C, "observation", { content: "o", usage: usage(0.125) })],
          [root, step(6, R, "error", { content: "e", reason: "model", usage: usage(0.25) })],
          [root, step(7, R, "thought", { content: "no call" })],
        ]),
      );
      expect(byTs(await state.spendSince(0))).toEqual([
        { ts: at(1), usd: 0.5 },
        { ts: at(2), usd: 0 },
        { ts: at(5), usd: 0.125 },
        { ts: at(6), usd: 0.25 },
      ]);
      expect(byTs(await state.spendSince(at(5)))).toEqual([
        { ts: at(5), usd: 0.125 },
        { ts: at(6), usd: 0.25 },
      ]);
      expect(await state.spendSince(at(6) + 1)).toEqual([]);
    });

    it("the workspace's files: saved by what changed (puts and removes), loaded whole", async () => {
      const { state } = await fresh();
      const dir: FileRecord = { path: "/notes", kind: "dir", mode: 0o755, mtime: 1_700_000_000_000 };
      const a = file("/notes/a.md");
      const b = file("/notes/b.md");
      const link: FileRecord = { path: "/link", kind: "symlink", target: "/notes/a.md", mode: 0o777, mtime: 1_700_000_000_000 };
      await state.files.save([dir, a, b, link], []);
      expect(byPath(await state.files.loadAll())).toStrictEqual(byPath([dir, a, b, link]));
      const a2 = file("/notes/a.md", { data: new TextEncoder().encode("changed"), mtime: 1_700_000_001_000 });
      await state.files.save([a2], ["/notes/b.md", "/link", "/never-there"]);
      expect(byPath(await state.files.loadAll())).toStrictEqual(byPath([dir, a2]));
      await state.files.save([], ["/notes/a.md"]);
      expect(await state.files.loadAll()).toStrictEqual([dir]);
    });

    it("the shell's state is kept and read back as last saved, and nothing else of the mind's record changes", async () => {
      const { state } = await fresh();
      const first = await state.record();
      expect(first).toBeDefined();
      expect(first?.shell).toBeUndefined();
      const { shell: _before, ...before } = recordOf((await state.record())?.settings);
      await state.saveShellState({ env: { A: "1", PATH: "/bin" }, cwd: "/notes" });
      expect((await state.record())?.shell).toEqual({ env: { A: "1", PATH: "/bin" }, cwd: "/notes" });
      await state.saveShellState({ env: {}, cwd: "/" });
      expect((await state.record())?.shell).toEqual({ env: {}, cwd: "/" });
      // A home may keep it in the record (IndexedDB does, beside the human's settings); the rest stays as it was.
      const { shell: _after, ...after } = recordOf((await state.record())?.settings);
      expect(after).toEqual(before);
    });

    it("the pacing is kept and read back as last saved, and nothing else of the mind's record changes", async () => {
      const { state } = await fresh();
      expect((await state.record())?.pacing).toBeUndefined();
      const { pacing_state: _before, ...before } = recordOf((await state.record())?.settings);
      await state.savePacing({ level: 3, ticks: 1, failures: 0 });
      expect((await state.record())?.pacing).toEqual({ level: 3, ticks: 1, failures: 0 });
      await state.savePacing({ level: 0, ticks: 0, failures: 2 });
      expect((await state.record())?.pacing).toEqual({ level: 0, ticks: 0, failures: 2 });
      const { pacing_state: _after, ...after } = recordOf((await state.record())?.settings);
      expect(after).toEqual(before);
    });

    it("two minds' states do not see each other", async () => {
      const one = await fresh();
      const two = await fresh();
      const a = step(1, R, "reasoning", { thought: "a", cmd: "ls", usage: usage(0.5) });
      await one.state.append(batch([[one.root, a]]));
      await one.state.putBlob(one.root, "x.stdout", "one's");
      await one.state.tiers(one.root).seal(tier(0, 0, "one's"));
      await one.state.files.save([file("/one")], []);
      expect(await two.state.count(two.root)).toBe(0);
      expect(await two.state.find(a.step_id, 5)).toEqual([]);
      expect(await two.state.spendSince(0)).toEqual([]);
      expect(await two.state.blob(two.root, "blobs/x.stdout")).toBeUndefined();
      expect(await two.state.tiers(two.root).list()).toEqual([]);
      expect(await two.state.files.loadAll()).toEqual([]);
      expect(await one.state.find(a.step_id, 5)).toEqual([{ step: a, trajId: one.root }]);
    });
  });
}
