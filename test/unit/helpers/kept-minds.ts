// Kept-alive minds for the server runner's tests: a mind its tab synced (its
// root trajectory named by its id in the tab, which the runner's steps must go
// on in), with settings a runner can start from, and keep-alive on.
import { randomUUID } from "node:crypto";
import type { Sql } from "@/lib/server/db/sql";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { newMind, upload, type App } from "../server/sync/harness";

/** Poll `probe` every 50 ms until it gives a value, or fail after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A mind's synced settings as its tab sends them: on the proxy, quick pacing, caps set. */
export const keptSettings = (id: string, name: string) => ({
  id,
  name,
  persona: "A test mind.",
  model: { provider: "proxy", model: "fake" },
  created_at: "2026-12-01T00:00:00.000Z",
  running: true,
  pacing: { base_s: 1, cap_s: 2, ticks_per_level: 1 },
  max_iterations: 4,
  permissions: DEFAULT_PERMISSIONS,
  budget: { hour_usd: 1, day_usd: 5 },
});

/** A new mind on `app`, synced by its tab (one trajectory step), its settings stored and keep-alive on. */
export async function keptAlive(app: App, sql: Sql, name: string) {
  const m = await newMind(app, name);
  const tabId = randomUUID();
  const first = { seq: 1, traj: tabId, json: JSON.stringify({ type: "trajectory", step_id: tabId, ts: "2026-12-01T00:00:00.000Z", name }) };
  const up = await upload(app, m, 0, [first], { trajectories: [{ traj: tabId, name, dir: "" }] });
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${await up.text()}`);
  await sql.query("UPDATE sync_minds SET settings = $2, keep_alive = true WHERE id = $1", [m.mind, JSON.stringify(keptSettings(tabId, name))]);
  return { ...m, tabId };
}
