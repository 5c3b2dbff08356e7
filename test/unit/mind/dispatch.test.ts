// lib/mind/dispatch.ts: who wakes for which step (`wakes`), what a busy
// thinker keeps waiting (TriggerQueue), and the Dispatcher that runs each
// handler one trigger at a time.
import { describe, expect, it } from "vitest";
import { Dispatcher, QUEUE_LIMIT, TriggerQueue, wakes, type Handler, type Subscription } from "../../../lib/mind/dispatch";
import type { Step } from "../../../lib/trajectory/schema";
import { settle } from "../helpers/fake-clock";
import { stepMaker } from "../helpers/steps";

const mk = stepMaker();
const message = (content: string, from = "ada") => mk("message", { from, to: "Reverie", content });
const action = (content: string) => mk("action", { content });
const observation = (content: string) => mk("observation", { content });

describe("wakes", () => {
  const sub: Subscription = { name: "responder", types: ["message", "action"] };

  it("wakes only for the subscribed types", () => {
    expect([message("hi"), action("ran"), observation("saw"), mk("thought", { content: "hm" })].map((s) => wakes(sub, s))).toEqual([true, true, false, false]);
  });

  it("a step with the thinker's own name as source does not wake it, unless it asks for that", () => {
    const own = mk("action", { content: "mine", source: "responder" });
    const other = mk("action", { content: "theirs", source: "monolith" });
    expect([wakes(sub, own), wakes(sub, other)]).toEqual([false, true]);
    expect([wakes({ ...sub, triggerSelf: true }, own), wakes({ ...sub, triggerSelf: true }, other)]).toEqual([true, true]);
  });

  it("`accept` filters further, and is only asked about subscribed types from others", () => {
    const asked: string[] = [];
    const picky: Subscription = {
      ...sub,
      accept: (s) => {
        asked.push(s.step_id);
        return s.type === "message" && (s as { from?: string }).from !== "Reverie";
      },
    };
    const fromAda = message("hi");
    const fromSelf = message("me", "Reverie");
    const ownAction = mk("action", { content: "x", source: "responder" });
    const anAction = action("y");
    const anObservation = observation("z");
    expect([fromAda, fromSelf, ownAction, anAction, anObservation].map((s) => wakes(picky, s))).toEqual([true, false, false, false, false]);
    expect(asked).toEqual([fromAda.step_id, fromSelf.step_id, anAction.step_id]);
  });
});

describe("TriggerQueue", () => {
  it("messages and actions queue first in, first out; the rest coalesces to the latest", () => {
    const q = new TriggerQueue();
    const [m1, m2] = [message("one"), message("two")];
    const [a1, a2] = [action("first"), action("second")];
    const [o1, o2, o3] = [observation("a"), mk("config-ish", { content: "b" }), observation("c")];
    for (const s of [o1, m1, a1, o2, m2, a2, o3]) expect(q.push(s)).toBeNull();
    expect(q.size).toBe(5);
    const taken: (Step | null)[] = [];
    for (let i = 0; i < 6; i++) taken.push(q.take());
    // Messages first, then actions, then the latest of the rest (o1 and o2 are gone).
    expect(taken).toEqual([m1, m2, a1, a2, o3, null]);
    expect(q.size).toBe(0);
  });

  it("is bounded per kind: a push past the limit returns the oldest of that kind as dropped", () => {
    const q = new TriggerQueue(2);
    const [m1, m2, m3, m4] = [message("1"), message("2"), message("3"), message("4")];
    const [a1, a2] = [action("a1"), action("a2")];
    expect([q.push(m1), q.push(m2), q.push(a1), q.push(a2)]).toEqual([null, null, null, null]);
    expect(q.push(m3)).toEqual(m1);
    expect(q.push(m4)).toEqual(m2);
    // The actions' queue is its own: the messages' overflow took none of them.
    expect([q.take(), q.take(), q.take(), q.take(), q.take()]).toEqual([m3, m4, a1, a2, null]);
  });

  it("holds QUEUE_LIMIT (16) by default", () => {
    const q = new TriggerQueue();
    const ms = Array.from({ length: QUEUE_LIMIT + 1 }, (_, i) => message(`m${i}`));
    const dropped = ms.map((m) => q.push(m));
    expect(QUEUE_LIMIT).toBe(16);
    expect(dropped).toEqual([...Array<null>(QUEUE_LIMIT).fill(null), ms[0]]);
    expect(q.takeMessages()).toEqual(ms.slice(1));
  });

  it("ignores a message or action whose id is already queued", () => {
    const q = new TriggerQueue();
    const m = message("hi");
    const a = action("ran");
    expect([q.push(m), q.push(m), q.push(a), q.push({ ...a })]).toEqual([null, null, null, null]);
    expect(q.size).toBe(2);
    expect([q.take(), q.take(), q.take()]).toEqual([m, a, null]);
    // Once taken, the same id may queue again (the queue holds what waits, not what was seen).
    q.push(m);
    expect(q.take()).toEqual(m);
  });

  it("`has` answers for every kind it holds", () => {
    const q = new TriggerQueue();
    const [m, a, o, gone] = [message("m"), action("a"), observation("o"), observation("old")];
    q.push(gone);
    q.push(m);
    q.push(a);
    q.push(o);
    expect([m, a, o, gone].map((s) => q.has(s.step_id))).toEqual([true, true, true, false]);
  });

  it("takeMessages takes every queued message, oldest first, and leaves the rest", () => {
    const q = new TriggerQueue();
    const [m1, m2] = [message("1"), message("2")];
    const a = action("a");
    const o = observation("o");
    for (const s of [m1, a, o, m2]) q.push(s);
    expect(q.takeMessages()).toEqual([m1, m2]);
    expect(q.takeMessages()).toEqual([]);
    expect(q.size).toBe(2);
    expect([q.take(), q.take(), q.take()]).toEqual([a, o, null]);
  });
});

/** A handler whose every `handle` waits until the test lets it finish. */
function gatedHandler(sub: Subscription, opts: { throwsOn?: string } = {}) {
  const handled: string[] = [];
  const dropped: string[] = [];
  const gates: (() => void)[] = [];
  const handler: Handler = {
    subscription: sub,
    handle(trigger) {
      handled.push((trigger as { content?: string }).content ?? trigger.step_id);
      if (opts.throwsOn && (trigger as { content?: string }).content === opts.throwsOn) throw new Error("handler broke");
      return new Promise<void>((resolve) => gates.push(resolve));
    },
    dropped: (s) => dropped.push((s as { content?: string }).content ?? s.step_id),
  };
  return {
    handler,
    handled,
    dropped,
    /** Let the oldest pending `handle` finish, then give the dispatcher a few turns. */
    async finish() {
      const gate = gates.shift();
      if (!gate) throw new Error("nothing is being handled");
      gate();
      await settle(5);
    },
    get pending() {
      return gates.length;
    },
  };
}

describe("Dispatcher", () => {
  const sub: Subscription = { name: "responder", types: ["message", "action", "observation"] };

  it("an idle handler starts at once; a busy one queues; it then takes messages, actions, the latest of the rest", async () => {
    const h = gatedHandler(sub);
    const d = new Dispatcher([h.handler]);
    d.offer(observation("o-first"));
    expect(h.handled).toEqual(["o-first"]); // synchronously: no turn had to pass
    for (const s of [action("a1"), observation("o1"), message("m1"), observation("o2"), action("a2"), message("m2")]) d.offer(s);
    await settle(5);
    expect(h.handled).toEqual(["o-first"]);
    for (let i = 0; i < 5; i++) await h.finish();
    expect(h.handled).toEqual(["o-first", "m1", "m2", "a1", "a2", "o2"]);
    await h.finish();
    expect(h.pending).toBe(0);
    await d.settled();
    // Idle again: the next trigger starts at once.
    d.offer(message("m3"));
    expect(h.handled.at(-1)).toBe("m3");
    await h.finish();
    await d.settled();
  });

  it("offers each step only to the handlers it wakes; handlers run independently", async () => {
    const responder = gatedHandler({ name: "responder", types: ["message"] });
    const watcher = gatedHandler({ name: "watcher", types: ["message", "observation"], accept: (s) => s.source !== "system" });
    const d = new Dispatcher([responder.handler, watcher.handler]);
    d.offer(message("m1"));
    d.offer(observation("o1"));
    d.offer(mk("observation", { content: "from system", source: "system" }));
    d.offer(mk("message", { from: "ada", to: "Reverie", content: "by the responder", source: "responder" }));
    expect(responder.handled).toEqual(["m1"]);
    expect(watcher.handled).toEqual(["m1"]);
    // The watcher frees up first: it takes its next trigger while the responder is still busy.
    await watcher.finish();
    expect(watcher.handled).toEqual(["m1", "by the responder"]);
    await watcher.finish();
    expect(watcher.handled).toEqual(["m1", "by the responder", "o1"]);
    expect(responder.handled).toEqual(["m1"]);
    await responder.finish();
    await watcher.finish();
    expect(responder.pending).toBe(0);
    await d.settled();
  });

  it("a full queue drops the oldest trigger and tells the handler", async () => {
    const h = gatedHandler(sub);
    const d = new Dispatcher([h.handler], 2);
    d.offer(message("busy"));
    for (const c of ["m1", "m2", "m3", "m4"]) d.offer(message(c));
    expect(h.dropped).toEqual(["m1", "m2"]);
    for (let i = 0; i < 3; i++) await h.finish();
    expect(h.handled).toEqual(["busy", "m3", "m4"]);
    await d.settled();
  });

  it("a handler that throws (or rejects) does not stop the dispatcher", async () => {
    const handled: string[] = [];
    const handler: Handler = {
      subscription: sub,
      async handle(trigger) {
        const c = (trigger as { content: string }).content;
        handled.push(c);
        await Promise.resolve();
        if (c === "rejects") throw new Error("async failure");
      },
    };
    const throwing = gatedHandler(sub, { throwsOn: "throws" });
    const d = new Dispatcher([handler, throwing.handler]);
    d.offer(message("throws"));
    d.offer(message("rejects"));
    d.offer(message("after"));
    await settle(5);
    expect(handled).toEqual(["throws", "rejects", "after"]);
    // The synchronous throw freed the gated handler: it went on to the next trigger.
    expect(throwing.handled).toEqual(["throws", "rejects"]);
    await throwing.finish();
    expect(throwing.handled).toEqual(["throws", "rejects", "after"]);
    await throwing.finish();
    await d.settled();
    d.offer(message("later"));
    expect(handled.at(-1)).toBe("later");
    await throwing.finish();
    await d.settled();
  });

  it("settled() resolves only when every handler is idle", async () => {
    const a = gatedHandler({ name: "a", types: ["message"] });
    const b = gatedHandler({ name: "b", types: ["message"] });
    const d = new Dispatcher([a.handler, b.handler]);
    await expect(d.settled()).resolves.toBeUndefined(); // nothing running
    d.offer(message("m1"));
    d.offer(message("m2"));
    let settled = false;
    void d.settled().then(() => (settled = true));
    await a.finish();
    await a.finish();
    expect(settled).toBe(false);
    await b.finish();
    expect(settled).toBe(false); // b still has m2
    await b.finish();
    await settle(5);
    expect(settled).toBe(true);
  });
});
