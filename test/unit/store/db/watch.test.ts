// watchTables (lib/store/db/watch.ts) over fake-indexeddb: it reads again when
// its tables change and only then, and never shows a read a change overtook.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, listMinds, setRunning } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { watchTables } from "@/lib/store/db/watch";
import { openTestDb } from "../../helpers/db";
import { stepMaker } from "../../helpers/steps";

let db: ReverieDb;
const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const newMind = (name: string) => createMind(db, { name, persona: "", model: { provider: "openai", model: "gpt" } }, NOW);
const settle = () => new Promise((r) => setTimeout(r, 20));

beforeEach(async () => {
  db = await openTestDb("store-watch");
});

afterEach(async () => {
  await db.delete();
});

describe("watchTables", () => {
  it("reads at once, again after each write to its table, and not after writes to others", async () => {
    const seen: string[][] = [];
    let reads = 0;
    const sub = watchTables(db, ["minds"], async () => {
      reads++;
      return (await listMinds(db)).map((m) => `${m.name}:${m.running}`);
    }).subscribe((names) => seen.push(names));
    await settle();
    const ada = await newMind("Ada");
    await settle();
    const readsBefore = reads;
    const step = stepMaker();
    for (let i = 0; i < 5; i++) await appendStep(db, ada.id, step("thought", { content: `thought ${i}` }));
    await settle();
    expect(reads).toBe(readsBefore);
    await setRunning(db, ada.id, false);
    await settle();
    sub.unsubscribe();
    await newMind("Bob");
    await settle();
    expect(seen).toEqual([[], ["Ada:true"], ["Ada:false"]]);
  });

  it("drops a read that a write overtook, and shows the read after it", async () => {
    const seen: number[] = [];
    let release: () => void = () => {};
    let first = true;
    const sub = watchTables(db, ["minds"], async () => {
      const n = (await listMinds(db)).length;
      if (first) {
        first = false;
        await new Promise<void>((r) => (release = r));
      }
      return n;
    }).subscribe((n) => seen.push(n));
    await settle();
    await newMind("Ada");
    await settle();
    release();
    await settle();
    sub.unsubscribe();
    expect(seen).toEqual([1]);
  });

  it("costs no read for a subscriber that leaves at once", async () => {
    let reads = 0;
    watchTables(db, ["minds"], async () => ++reads)
      .subscribe(() => undefined)
      .unsubscribe();
    await settle();
    expect(reads).toBe(0);
  });
});
