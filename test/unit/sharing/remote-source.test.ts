// The viewer's remote source over the real sharing routes, in process (PGlite,
// and PostgreSQL when configured): what the viewer reads through a link.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sharingServer } from "../server/sync/harness";
import type { WireStep } from "@/lib/sync/wire";
import { shareClient } from "@/lib/sharing/client";
import { syncClient } from "@/lib/sync/client/client";
import { type FetchPort } from "@/lib/sync/client/http";
import { parseWireStep, remoteSource } from "@/lib/sharing/remote-source";
import { entryOf } from "@/lib/trajectory/rows";
import { stampStep, type Step } from "@/lib/trajectory/schema";
import { engines } from "../server/databases";

const BASE = "http://reverie.test";
const ROOT = "0000aaaa-0000-4000-8000-000000000000";
const CHILD = "0000bbbb-0000-4000-8000-000000000000";

const step = (n: number, fields: Record<string, unknown>): Step =>
  stampStep({ type: "thought", ...fields } as never, { id: `${n.toString(16).padStart(8, "0")}-0000-4000-8000-cccccccccccc`, now: Date.parse("2025-01-01T00:00:00Z") + n * 1000 });

describe("parseWireStep", () => {
  it("parses a step event's data, and skips what is not a step", () => {
    const s = step(1, { content: "hi" });
    expect(parseWireStep(JSON.stringify({ seq: 7, traj: ROOT, json: JSON.stringify(s) }))).toEqual({ seq: 7, traj: ROOT, step: s });
    expect(parseWireStep("not json")).toBeNull();
    expect(parseWireStep(JSON.stringify({ seq: 0, traj: ROOT, json: "{}" }))).toBeNull();
    expect(parseWireStep(JSON.stringify({ seq: 3, traj: ROOT, json: '{"type":"thought"}' }))).toBeNull();
  });
});

describe.each(engines)("remote source over a share link ($name)", (engine) => {
  let remove: () => Promise<void>;
  let fetchPort: FetchPort;

  beforeEach(async (ctx) => {
    if (engine.skip) ctx.skip();
    const server = await sharingServer(engine);
    ({ remove } = server);
    const handle = server.fetch;
    fetchPort = (input, init) => handle(new Request(input, init));
  }, 60_000);
  afterEach(async () => {
    await remove?.();
  }, 60_000);

  /** A synced mind with ten root steps (seq 1, 3, … 19) and five in a child (seq 2, 4, … 10), and a blob in the child's folder. */
  async function seed() {
    const sync = syncClient(fetchPort, BASE);
    const { mind, write_token } = await sync.createMind("Ada");
    const steps: WireStep[] = [];
    for (let i = 1; i <= 19; i++) {
      const inChild = i % 2 === 0 && i <= 10;
      if (i % 2 === 0 && !inChild) continue;
      steps.push({ seq: i, traj: inChild ? CHILD : ROOT, json: JSON.stringify(step(i, { content: `step ${i}` })) });
    }
    await sync.putBlob(mind, write_token, "0000aaaa-ada/0000bbbb-child/blobs/out.txt", "the whole output");
    await sync.upload(mind, write_token, {
      after: 0,
      steps,
      trajectories: [
        { traj: ROOT, name: "Ada", dir: "" },
        { traj: CHILD, name: "child", dir: "0000aaaa-ada/0000bbbb-child", parent_traj: ROOT },
      ],
    });
    return { sync, mind, write_token, steps };
  }

  it("reads a live link's trajectories, newest, older, bodies, locate, search and blobs", async () => {
    const { sync, mind, write_token, steps } = await seed();
    const link = await sync.createLink(mind, write_token, { kind: "live" });
    const client = shareClient(fetchPort, link.token, BASE);
    const source = remoteSource({ client, shared: await client.mind() });
    const entries = (traj: string) => steps.filter((s) => s.traj === traj).map((s) => entryOf(s.seq, JSON.parse(s.json) as Step));

    expect(source.root).toBe(ROOT);
    const trajs = await source.trajectories();
    expect(trajs.map((t) => [t.traj_id, t.dir, t.parent_traj])).toEqual([
      [ROOT, "", undefined],
      [CHILD, "0000aaaa-ada/0000bbbb-child", ROOT],
    ]);
    expect(await source.newest(ROOT, 3)).toEqual(entries(ROOT).slice(-3));
    const pages: ReturnType<typeof entries>[] = [];
    await source.older(ROOT, 15, (p) => pages.push(p));
    expect(pages.flat()).toEqual(entries(ROOT).filter((e) => e.seq < 15));
    expect(await source.newest(CHILD, 10)).toEqual(entries(CHILD));

    const bodies = await source.bodies([1, 19, 4]);
    expect([...bodies.entries()].sort((a, b) => a[0] - b[0])).toEqual([1, 4, 19].map((seq) => [seq, JSON.parse(steps.find((s) => s.seq === seq)?.json ?? "")]));
    expect(await source.locate(JSON.parse(steps[3]?.json ?? "").step_id)).toEqual({ seq: steps[3]?.seq, traj: steps[3]?.traj });
    expect(await source.locate("ffffffff-0000-4000-8000-000000000000")).toBeNull();
    expect((await source.search("step 1")).hits.map((h) => h.seq)).toEqual([1, 10, 11, 13, 15, 17, 19]);
    expect(await source.blob(trajs[1], "blobs/out.txt")).toBe("the whole output");
    expect(await source.blob(trajs[0], "blobs/none.txt")).toBeUndefined();
  });

  it("a snapshot has no watch and reads nothing past its step", async () => {
    const { sync, mind, write_token } = await seed();
    const link = await sync.createLink(mind, write_token, { kind: "snapshot", at_seq: 9 });
    const client = shareClient(fetchPort, link.token, BASE);
    const source = remoteSource({ client, shared: await client.mind(), openEvents: () => { throw new Error("a snapshot opens no stream"); } });
    expect(source.watch).toBeUndefined();
    expect((await source.newest(ROOT, 100)).map((e) => e.seq)).toEqual([1, 3, 5, 7, 9]);
  });

  it("reports a revoked link once, from whichever read finds it gone", async () => {
    const { sync, mind, write_token } = await seed();
    const link = await sync.createLink(mind, write_token, { kind: "live" });
    const client = shareClient(fetchPort, link.token, BASE);
    let revoked = 0;
    const source = remoteSource({ client, shared: await client.mind(), onRevoked: () => revoked++ });
    await sync.revokeLink(mind, write_token, link.id);
    await expect(source.newest(ROOT, 5)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(source.search("step")).rejects.toMatchObject({ status: 404 });
    expect(revoked).toBe(1);
  });
});
