// Its owner's own, handed in while another home holds the mind
// (lib/server/inbox/owner.ts, POST /api/sync/minds/<mind>/owner): a message
// and new settings reach a mind the server's runner hosts through its way in,
// each written once by its own writer; the settings become its record (the
// next stretch starts with them); what is not an owner's step is refused, and
// the same change twice is kept once. On both engines; the model is a FAKE at
// the model port, as in runner.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelPort, ModelRequest, ModelResult } from "@/lib/mind/ports";
import { configStep, MindSettings } from "@/lib/mind/settings/settings";
import type { Sql } from "@/lib/server/db/sql";
import { hostBoundNetwork } from "@/lib/server/runner/network";
import { Runner } from "@/lib/server/runner/runner";
import { stampStep } from "@/lib/trajectory/schema";
import { engines } from "../databases";
import { keptAlive, keptSettings, until } from "../../helpers/kept-minds";
import { instance, type App } from "../sync/harness";

const RESPONDER = "Reply with the text of your answer only";

/** FAKE model: the responder answers; the inner life idles at once. What each inner-life call's instructions said, kept. */
function fakeModel(): ModelPort & { instructions: string[] } {
  const port = {
    name: "fake/model",
    instructions: [] as string[],
    async complete(req: ModelRequest): Promise<ModelResult> {
      if (req.instructions.includes(RESPONDER)) return { ok: true, text: "Got it, Ada." };
      port.instructions.push(req.instructions);
      return { ok: true, text: 'Nothing to do.\n```bash\nFINAL="idle"\n```' };
    },
  };
  return port;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`its owner's own, while the server holds it, on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    let runner: Runner;
    const model = fakeModel();

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
      runner = new Runner({ sql, maxMinds: 5, leaseS: 5, pollMs: 100, wakes: { pollSeconds: 0.5 }, model: async () => model, network: (s) => hostBoundNetwork(s.permissions, []), log: () => undefined });
      await runner.start();
    }, 120_000);
    afterAll(async () => {
      await runner?.stop();
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const steps = async (mind: string) => (await sql.query<{ json: string }>("SELECT json FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind])).map((r) => JSON.parse(r.json) as Record<string, unknown>);
    const hand = (m: { mind: string; token: string }, body: unknown) => app.call("POST", `/api/sync/minds/${m.mind}/owner`, { token: m.token, body });

    it("a message and new settings reach the mind the runner hosts: each written once by its writer, the settings its record and its next stretch's", async () => {
      const m = await keptAlive(app, sql, "Ivy");
      const message = stampStep({ type: "message", source: "chat", from: "Ada", to: "Ivy", content: "Are you there, on the server?" }, { id: crypto.randomUUID(), now: Date.now() });
      expect(await (await hand(m, { id: message.step_id, kind: "step", step: message })).json()).toEqual({ kept: true });
      expect(await (await hand(m, { id: message.step_id, kind: "step", step: message })).json()).toEqual({ kept: false });
      const settings = MindSettings.parse({ ...keptSettings(m.tabId, "Ivy"), persona: "A test mind, now terse." , max_iterations: 3 });
      const config = configStep(settings, Date.now(), crypto.randomUUID());
      expect((await hand(m, { id: config.step_id, kind: "step", step: config, settings })).status).toBe(202);
      await runner.wakes().now(m.mind, "message");

      const reply = await until("the reply", async () => (await steps(m.mind)).find((s) => s.type === "message" && s.reply_to === message.step_id));
      expect(reply).toMatchObject({ from: "Ivy", to: "Ada", content: "Got it, Ada." });
      await until("the config step", async () => (await steps(m.mind)).some((s) => s.step_id === config.step_id));
      const all = await steps(m.mind);
      expect(all.filter((s) => s.step_id === message.step_id)).toHaveLength(1);
      expect(all.filter((s) => s.step_id === config.step_id)).toEqual([expect.objectContaining({ type: "config", max_iterations: 3 })]);
      // Stamped by its writer as it took them: its trajectory reads in time order.
      const ts = all.map((s) => Date.parse(String(s.ts)));
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
      // The stretch that took the config step ended there; the next, under a new lease epoch, starts from the new record.
      const after = await until("a wake after the config step", async () => {
        const now = await steps(m.mind);
        const at = now.findIndex((s) => s.step_id === config.step_id);
        return now.slice(at).find((s) => s.type === "wake");
      });
      const before = all.slice(0, all.findIndex((s) => s.step_id === config.step_id)).filter((s) => s.type === "wake").at(-1);
      expect(Number(after.epoch)).toBeGreaterThan(Number(before?.epoch));
      const [row] = await sql.query<{ settings: string }>("SELECT settings FROM sync_minds WHERE id = $1", [m.mind]);
      expect(JSON.parse(row?.settings ?? "{}")).toMatchObject({ max_iterations: 3, persona: "A test mind, now terse." });
      // Nothing left to deliver.
      const [inbox] = [await (await app.call("GET", `/api/sync/minds/${m.mind}/inbox`, { token: m.token })).json()];
      expect(inbox).toMatchObject({ owner: [] });
    });

    it("refuses what is not its owner's to hand in: a step of another kind, a config step without its settings, settings with a key", async () => {
      const m = await keptAlive(app, sql, "Jo");
      const thought = stampStep({ type: "thought", content: "not mine to write" }, { id: crypto.randomUUID(), now: Date.now() });
      const refused = await hand(m, { id: thought.step_id, kind: "step", step: thought });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: "invalid", message: "a mind's owner hands it message or config steps, not thought" } });
      const settings = MindSettings.parse(keptSettings(m.tabId, "Jo"));
      const config = configStep(settings, Date.now(), crypto.randomUUID());
      expect(await (await hand(m, { id: config.step_id, kind: "step", step: config })).json()).toMatchObject({ error: { code: "invalid", message: "a config step comes with the settings it records" } });
      const keyed = await hand(m, { id: config.step_id, kind: "step", step: config, settings: { ...settings, model: { ...settings.model, apiKey: "fake-key-not-real" } } });
      expect(keyed.status).toBe(400);
      expect((await sql.query("SELECT 1 FROM owner_changes WHERE mind = $1", [m.mind])).length).toBe(0);
    });
  });
}
