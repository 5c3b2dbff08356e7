// What the mind's loop does with each way a provider's call goes wrong, as
// the README's table says: the InnerLife under a fake clock, its model the
// real modelPort over each provider's own AI SDK code, against the FAKE of
// that provider's wire format (test/fixtures/providers/) on loopback. A 429
// waits the seconds asked; a refused key and an overloaded provider are
// error steps retried with backoff; a reply cut, ended short, malformed or
// failed mid-way is never acted on. The port-level results are in
// llm-wire.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { modelPort } from "../../../lib/llm/complete";
import { createModel, modelLabel } from "../../../lib/llm/model";
import { Journal } from "../../../lib/mind/log/journal";
import { DEFAULT_PACING } from "../../../lib/mind/pacing/pacing";
import { DEFAULT_RUN_LIMITS } from "../../../lib/mind/run/run";
import { InnerLife } from "../../../lib/mind/thinkers/inner-life";
import type { MindStatus } from "../../../lib/protocol";
import type { StepOf } from "../../../lib/trajectory/schema";
import type { FakeProvider, Scenario } from "../../fixtures/providers/fake-provider";
import { FakeClock } from "../helpers/fake-clock";
import { FakeShell, finalResult } from "../helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "../helpers/memory-log";
import { settingsFor, WIRE_CASES } from "../helpers/providers-on-the-wire";

const IDLE = "Nothing needs doing.\n\n```bash\nFINAL=idle\n```";
const tokens = { input: 300, cached: 0, output: 20, reasoning: 0 };
const idleReply: Scenario = { kind: "reply", text: IDLE, tokens };
/** Half a reply whose bash block never closed: run as it stands, it would remove the wrong thing. */
const HALF = "Clearing the scratch space.\n\n```bash\nrm -rf /tmp/scr";

type Waiting = Extract<MindStatus, { state: "waiting" }>;

// Each test has a fake of its own: after its last wake the loop goes on (an idle mind wakes again at once),
// and a call still on its way must not take the next test's script.
let running: { life: InnerLife; fake: FakeProvider } | null = null;
afterEach(async () => {
  await running?.life.stop();
  await running?.fake.close();
  running = null;
});

for (const c of WIRE_CASES) {
  describe(`${c.provider}: what the mind does`, () => {
    /** An inner life on this provider, its fake answering with `scenarios`; `waiting()` resolves at its next wait (its sleep is then asked for). */
    async function mind(...scenarios: Scenario[]) {
      const fake = await c.start();
      fake.enqueue(...scenarios);
      const log = new MemoryStepLog();
      const clock = new FakeClock();
      const shell = new FakeShell((code, req) => (/^FINAL=idle$/m.test(code) ? finalResult(req, "idle") : {}));
      const partials: string[] = [];
      const waits: { delay: number; lastError?: string }[] = [];
      let next: ((w: Waiting) => void) | null = null;
      const settings = settingsFor(c, fake);
      const life = new InnerLife({
        journal: new Journal(log, sequentialIds(), clock),
        model: modelPort(await createModel(settings), modelLabel(settings)),
        shell,
        clock,
        selfName: "Reverie",
        instructions: "You are Reverie.",
        pacing: DEFAULT_PACING,
        limits: DEFAULT_RUN_LIMITS,
        shellState: { env: {}, cwd: "/workspace" },
        emit: (e) => {
          if (e.type === "partial") partials.push(e.text);
          if (e.type !== "status" || e.status.state !== "waiting") return;
          const s = e.status;
          waits.push({ delay: (s.nextWakeAt - clock.now()) / 1000, lastError: s.lastError });
          next?.(s);
        },
      });
      running = { life, fake };
      const waiting = () => new Promise<Waiting>((resolve) => (next = resolve));
      const first = waiting();
      void life.start();
      return {
        /** Where the calls went. */
        callUrl: `${fake.url}${c.callPath}`,
        log,
        clock,
        shell,
        partials,
        waits,
        first,
        /** Wake from the pending sleep and wait for the next one. */
        async retry() {
          const w = waiting();
          clock.advanceToNextWake();
          return w;
        },
        errors: () => (log.ofType("error") as StepOf<"error">[]).map((e) => [e.reason, e.content]),
        /** The wakes as [reason, delay_s], up to the first that did not fail (the loop goes on after it). */
        wakes: () => {
          const all = (log.ofType("wake") as StepOf<"wake">[]).map((w) => [w.reason, w.delay_s]);
          return all.slice(0, waits.findIndex((w) => w.lastError === undefined) + 1);
        },
      };
    }

    it("a 429: an error step naming it, and the next try waits the seconds asked", async () => {
      const m = await mind({ kind: "rate-limited", retryAfterS: 37 }, idleReply);
      await m.first;
      const said = `HTTP 429 from ${m.callUrl}: ${c.says.rateLimited}`;
      expect(m.errors()).toEqual([["model", `${said} (the server asks to wait 37 s)`]]);
      expect(m.clock.sleeping).toEqual([37_000]);
      await m.retry();
      expect(m.wakes()).toEqual([
        ["start", 0],
        ["retry", 37],
      ]);
      expect(m.waits.slice(0, 2)).toEqual([{ delay: 37, lastError: said }, { delay: 0, lastError: undefined }]);
    });

    it("a refused key: an error step that says so, retried with backoff (5, 10 s …) until the key works", async () => {
      const m = await mind({ kind: "key-refused" }, { kind: "key-refused" }, idleReply);
      await m.first;
      await m.retry();
      await m.retry();
      const said = `HTTP ${c.says.keyRefused.status} from ${m.callUrl}: ${c.says.keyRefused.message} The provider refused the API key: fix it in Settings.`;
      expect(m.errors()).toEqual([
        ["model", said],
        ["model", said],
      ]);
      expect(m.wakes()).toEqual([
        ["start", 0],
        ["retry", 5],
        ["retry", 10],
      ]);
      expect(m.clock.requested).toEqual([5_000, 10_000]);
    });

    it(`overloaded (HTTP ${c.says.overloaded.status}): an error step, and a retry after the backoff`, async () => {
      const m = await mind({ kind: "overloaded" }, idleReply);
      await m.first;
      await m.retry();
      expect(m.errors()).toEqual([["model", `HTTP ${c.says.overloaded.status} from ${m.callUrl}: ${c.says.overloaded.message}`]]);
      expect(m.wakes()).toEqual([
        ["start", 0],
        ["retry", 5],
      ]);
      expect(m.log.ofType("idle")).toHaveLength(1);
    });

    it("a reply cut, ended short, malformed or failed mid-way is never acted on: an error step each, then a retry", async () => {
      const broken: Scenario[] = [
        { kind: "cut", text: HALF },
        { kind: "ends-early", text: HALF },
        { kind: "malformed", text: HALF },
        ...(c.says.errorEvent ? [{ kind: "error-event", text: HALF } as const] : []),
      ];
      const m = await mind(...broken, idleReply);
      await m.first;
      for (let i = 1; i < broken.length; i++) await m.retry();
      await m.retry();
      const errors = m.errors();
      expect(errors.map(([reason]) => reason)).toEqual(broken.map(() => "model"));
      expect(errors[0]![1]).toBe(`The model's reply from ${m.callUrl} broke off before it finished (terminated).`);
      expect(errors[1]![1]).toBe("The model's reply ended before it finished: the stream closed without the provider's last event.");
      expect(errors[2]![1]).toMatch(/^JSON parsing failed: Text: /);
      if (c.says.errorEvent) expect(errors[3]![1]).toBe(`The model's provider reported an error partway through its reply ${c.says.errorEvent}`);
      expect(m.wakes().map(([, delay]) => delay)).toEqual([0, 5, 10, 20, 40].slice(0, broken.length + 1));
      // Only the whole reply ran; the half block never reached the shell, and no step kept the half reply.
      expect(m.shell.calls.map((call) => call.code)).toEqual(["FINAL=idle"]);
      expect(m.log.steps.filter((s) => JSON.stringify(s).includes("rm -rf"))).toEqual([]);
      // The page saw it arrive, and saw it cleared.
      expect(m.partials).toContain(HALF);
      expect(m.partials.at(-1)).toBe("");
    });
  });
}
