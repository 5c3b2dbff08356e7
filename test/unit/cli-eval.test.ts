// `reverie eval` (cli/eval.ts) against the scripted OpenAI-compatible model
// server (test/fixtures: the real provider code on the wire, on loopback): a
// scenario played and scored, its results as JSON; bad arguments and bad
// scenarios exit 2 naming the problem.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "@/cli/reverie";
import { startModelServer, type ModelServer } from "../fixtures/model-server";

const SCENARIO = {
  name: "a short memory",
  start: "2026-01-05T08:00:00Z",
  duration_h: 2,
  people: ["Ada", "Bo"],
  persona: "You keep a small team's memory.",
  settings: { pacing: { base_s: 60, cap_s: 900 } },
  events: [
    { at_h: 0.2, from: "Ada", message: "My cat is called Miso." },
    { at_h: 1, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
  ],
};

let server: ModelServer;
let dir: string;
beforeAll(async () => {
  server = await startModelServer({ responder: () => ({ text: "Nothing new.\n```bash\nFINAL=idle\n```" }) });
  // The responder thinker's calls: it answers the question from what it was told (a FAKE mind that remembers).
  server.setReplyResponder(({ messages }) => {
    const last = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    return { text: /cat called\?/.test(last) ? "Her cat is Miso." : "Noted." };
  });
  dir = mkdtempSync(join(tmpdir(), "reverie-eval-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  return main(argv, { out: (s) => void out.push(s), err: (s) => void err.push(s) }).then((code) => ({ code, out: out.join(""), err: err.join("") }));
}

function file(name: string, doc: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(doc));
  return p;
}

describe("reverie eval", () => {
  it("plays a scenario against a model server and prints its probes and figures as JSON", async () => {
    const r = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--json"]);
    expect(r.err).toContain("a short memory:");
    expect(r.code).toBe(0);
    const results = JSON.parse(r.out);
    expect(results).toMatchObject({ scenario: "a short memory", model: "openai-compatible/scripted", simulated_h: 2, complete: true });
    expect(results.probes).toEqual([expect.objectContaining({ id: "cat", kind: "recall", pass: true })]);
    expect(results.metrics.reply_rate).toBe(1);
    // The per-wake log: every wake with its mode and cost.
    expect(results.wakes.length).toBeGreaterThan(1);
    expect(results.wakes[0]).toEqual({ at_h: expect.any(Number), reason: expect.any(String), mode: expect.stringMatching(/^(talk|act|think|idle)$/), tokens: expect.any(Number), model_s: expect.any(Number), exec_s: expect.any(Number) });
    expect(results.metrics.model_calls).toBeGreaterThan(2);
    // The calls went to the server, through the provider code.
    expect(server.requests.length).toBe(results.metrics.model_calls);
  }, 120_000);

  it("prints a table without --json", async () => {
    const r = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^a short memory with openai-compatible\/scripted: 2 simulated h in [\d.]+ s$/m);
    expect(r.out).toMatch(/^pass {2}cat +recall/m);
    expect(r.out).toMatch(/^reply_rate +1$/m);
    expect(r.out).toMatch(/^wakes +\d+ (talk|act|think|idle)/m);
  }, 120_000);

  it("exits 2 naming the problem: arguments, a missing key, a bad scenario, a bad --set", async () => {
    const good = file("short.json", SCENARIO);
    const noModel = await run(["eval", good, "--base-url", server.url]);
    expect(noModel.code).toBe(2);
    expect(noModel.err).toContain("--model: a model name is needed");
    const noUrl = await run(["eval", good, "--model", "m"]);
    expect(noUrl.err).toContain("--base-url is needed for --provider openai-compatible");
    const noKey = await run(["eval", good, "--base-url", server.url, "--model", "m", "--api-key-env", "REVERIE_TEST_NO_SUCH_KEY"]);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain("the environment variable REVERIE_TEST_NO_SUCH_KEY is not set");
    const unpriced = await run(["eval", good, "--provider", "openai", "--model", "gpt-unknown"]);
    expect(unpriced.err).toContain("no price is known for openai/gpt-unknown: give --price IN,OUT");
    const bad = await run(["eval", file("bad.json", { ...SCENARIO, events: [{ at_h: 1, from: "Cy", message: "hi" }] }), "--base-url", server.url, "--model", "m"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('events[0].from: "Cy" is not one of the people');
    const badSet = await run(["eval", good, "--base-url", server.url, "--model", "m", "--set", "pacing.cap_s=-1"]);
    expect(badSet.code).toBe(2);
    expect(badSet.err).toContain("settings.pacing.cap_s: ");
    const missing = await run(["eval", join(dir, "nope.json"), "--base-url", server.url, "--model", "m"]);
    expect(missing.err).toContain("no such file");
    expect((await run(["eval", good, "--frobnicate"])).err).toContain("unknown option --frobnicate");
  }, 60_000);
});
