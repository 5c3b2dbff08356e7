// The inbound side of the MindState contract (lib/mind/state/inbound.ts): the
// one door through which what others bring a mind comes in, run against every
// home of a mind's state (memory, IndexedDB, SQL) as the rest of the contract
// is (./mind-state-contract.ts). Each home says how someone else brings
// something (`Outside`): a person's message (the page's writer in a tab, an
// invite's inbox on the server, a scenario's script in memory) and a change to
// the mind's memory (the page's queue, an operator's, a test's), and how it is
// made to arrive (`settle`: the server's runner pulls; a tab's change feed and
// queues come by themselves).
import { describe, expect, it } from "vitest";
import type { InboundChange, InboundSink } from "../../../lib/mind/state/inbound";
import type { MindState, TrajStep } from "../../../lib/mind/state/state";
import { parseStep, type Step } from "../../../lib/trajectory/schema";
import { id } from "./steps";

export interface Outside {
  /** A person writes to the mind. */
  message(from: string, content: string): Promise<void>;
  /** Someone asks a change of the mind's memory: `change.id` becomes its step's id. */
  change(change: { id: string; text: string }): Promise<void>;
  /** What has come is made to arrive (the server's runner pulls its inbox); resolves once handed over. */
  settle(): Promise<void>;
}

export type InboundState = MindState & { close?: () => Promise<void> | void; outside: Outside };

const T0 = Date.parse("2025-02-01T00:00:00.000Z");
const thought = (n: number, content: string): Step => {
  const parsed = parseStep({ step_id: id(n, "aaaaaaaaaaaa"), ts: new Date(T0 + n * 1000).toISOString(), type: "thought", content });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.step;
};
const contentOf = (s: Step) => ("content" in s && typeof s.content === "string" ? s.content : "");

/** The mind's side of the door, as a test's: what is stored for it comes in as it is; what arrives is written by "its writer" (the state's own append) as it is taken. */
function sinkOf(state: MindState, root: string, got: TrajStep[], change: InboundSink["change"] = () => Promise.reject(new Error("no change was asked"))): InboundSink {
  return {
    steps: (steps) => void got.push(...steps),
    async arrive(steps) {
      await state.append({ steps: steps.map((step) => ({ trajId: root, step })), seen: [] });
      got.push(...steps.map((step) => ({ trajId: root, step })));
    },
    change,
  };
}

/** Waits, settling, until `ok` (a tab's change feed is read every few tens of milliseconds). */
async function until(outside: Outside, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) {
    await outside.settle();
    if (!ok()) await new Promise((r) => setTimeout(r, 10));
  }
}

export function inboundContract(name: string, make: (mindId: string) => Promise<InboundState>): void {
  describe(`MindState contract, its way in: ${name}`, () => {
    let minds = 0;
    const fresh = async () => {
      const mindId = id(0x7000 + ++minds, "dddddddddddd");
      return { state: await make(mindId), root: mindId };
    };

    it("what others bring comes in once, in order, stored; what the state wrote itself never comes in", async () => {
      const { state, root } = await fresh();
      const got: TrajStep[] = [];
      const inbound = await state.inbound.open(sinkOf(state, root, got));
      try {
        await state.append({ steps: [{ trajId: root, step: thought(1, "a thought of my own") }], seen: [] });
        await state.outside.message("Ada", "first");
        await state.outside.message("Ada", "second");
        await until(state.outside, () => got.length >= 2);
        // Asked again, nothing comes twice.
        await state.outside.settle();
        await new Promise((r) => setTimeout(r, 120));
        expect(got.map((g) => [g.trajId, g.step.type, contentOf(g.step)])).toEqual([
          [root, "message", "first"],
          [root, "message", "second"],
        ]);
        const stored = (await state.tail(root, 10)).map((s) => [s.type, contentOf(s)]);
        expect(stored).toEqual([
          ["thought", "a thought of my own"],
          ["message", "first"],
          ["message", "second"],
        ]);
      } finally {
        await inbound.close();
        await state.close?.();
      }
    });

    it("a change asked comes in once, with its id; the mind records it, and it is not asked again", async () => {
      const { state, root } = await fresh();
      const asked: InboundChange[] = [];
      const changeId = id(0x7100 + minds, "cccccccccccc");
      const inbound = await state.inbound.open(
        sinkOf(state, root, [], async (c) => {
          asked.push(c);
          // The mind makes it and records it under the change's id.
          const step: Step = { ...thought(9, "made the change"), step_id: c.id.toLowerCase() };
          await state.append({ steps: [{ trajId: root, step }], seen: [] });
          return step;
        }),
      );
      try {
        await state.outside.change({ id: changeId, text: "Ada likes tea" });
        await until(state.outside, () => asked.length >= 1);
        await state.outside.settle();
        await new Promise((r) => setTimeout(r, 120));
        expect(asked.map((c) => [c.id.toLowerCase(), c.kind])).toEqual([[changeId, "curation"]]);
        expect(asked[0]?.body).toMatchObject({ what: "memory", op: "add", text: "Ada likes tea" });
        expect((await state.tail(root, 10)).map((s) => s.step_id)).toEqual([changeId]);
      } finally {
        await inbound.close();
        await state.close?.();
      }
    });

    it("once closed, nothing more comes in", async () => {
      const { state, root } = await fresh();
      const got: TrajStep[] = [];
      const inbound = await state.inbound.open(sinkOf(state, root, got));
      await inbound.close();
      await state.outside.message("Ada", "too late");
      await state.outside.settle();
      await new Promise((r) => setTimeout(r, 120));
      expect(got).toEqual([]);
      await state.close?.();
    });
  });
}
