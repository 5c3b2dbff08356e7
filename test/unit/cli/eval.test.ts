// `reverie eval` (cli/eval.ts) against the scripted OpenAI-compatible model
// server (test/fixtures: the real provider code on the wire, on loopback): a
// scenario played and scored, its results as JSON; bad arguments and bad
// scenarios exit 2 naming the problem.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalScenario, parseEvalArgs } from "@/cli/eval";
import { main } from "@/cli/reverie";
import { readArchive } from "@/lib/archive";
import { parseEvalResults } from "@/lib/eval/results";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import { SHORT_MEMORY } from "../helpers/eval-example";

const SCENARIO = SHORT_MEMORY;

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

describe("reverie eval --seed, --vary and --out", () => {
  it("--out writes an archive the app imports: the trajectory, results.json beside it, and the same packed as .tar.gz", async () => {
    const out = join(dir, "out-one");
    const r = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--seed", "5", "--out", out, "--json"]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`wrote ${out}`);
    const printed = JSON.parse(r.out);
    const written = parseEvalResults(readFileSync(join(out, "results.json"), "utf8"));
    if (!written.ok) throw new Error(written.error);
    expect(written.results).toEqual(printed);
    expect(written.results).toMatchObject({ format: "reverie-eval-results", version: 1, seed: 5, label: "", scenario: "a short memory" });
    const names = readdirSync(out).sort();
    expect(names).toEqual(expect.arrayContaining(["a-short-memory.tar.gz", "mind.json", "results.json"]));
    const trajDir = names.find((n) => /^[0-9a-f]{8}-/.test(n)) as string;
    const lines = readFileSync(join(out, trajDir, "trajectory.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "trajectory", step_id: written.results.mind_id });
    // Every evidence step is in the archive.
    const ids = new Set(lines.map((l) => l.step_id));
    for (const p of written.results.probes) for (const id of p.evidence) expect(ids.has(id)).toBe(true);
    // The .tar.gz holds the same files, as the app's import reads them.
    const packed: Record<string, string> = {};
    for await (const e of readArchive(new Blob([readFileSync(join(out, "a-short-memory.tar.gz"))]), { name: "a-short-memory.tar.gz" })) packed[e.path] = await e.text();
    // The sealed summaries beside the trajectory: two hours of an idle mind are more than a block of steps.
    expect(Object.keys(packed).sort()).toEqual(["mind.json", "results.json", `${trajDir}/tiers.jsonl`, `${trajDir}/trajectory.jsonl`].sort());
    expect(packed[`${trajDir}/tiers.jsonl`]).toBe(readFileSync(join(out, trajDir, "tiers.jsonl"), "utf8"));
    expect(packed["results.json"]).toBe(readFileSync(join(out, "results.json"), "utf8"));
    // Written again over its own earlier output; a folder holding anything else is refused before anything is played.
    expect((await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--out", out, "--json"])).code).toBe(0);
    const other = join(dir, "not-empty");
    mkdirSync(other);
    writeFileSync(join(other, "notes.txt"), "mine");
    const refused = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--out", other]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("is not empty and holds no earlier results.json");
    expect(readFileSync(join(other, "notes.txt"), "utf8")).toBe("mine");
  }, 120_000);

  it("--seed gives the same results twice over the wire", async () => {
    const once = async () => {
      const r = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--seed", "9", "--json"]);
      const { wall_s: _w, wakes, ...rest } = JSON.parse(r.out);
      return { ...rest, wakes: wakes.map(({ model_s: _m, exec_s: _e, ...w }: Record<string, unknown>) => w) };
    };
    const [a, b] = [await once(), await once()];
    expect(b).toEqual(a);
    // A repeatable run's calls each count the same simulated time: the answer came one call after the question.
    expect(a.metrics.first_response_s_p50).toBe(2);
  }, 120_000);

  it("--vary plays once per value, side by side, and --out writes each variant with every variant's results", async () => {
    const out = join(dir, "out-vary");
    const r = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--seed", "1", "--vary", "pacing.cap_s=60,1800", "--out", out, "--json"]);
    expect(r.code).toBe(0);
    const all = JSON.parse(r.out);
    expect(all.variants.map((v: { label: string; set: unknown }) => [v.label, v.set])).toEqual([
      ["pacing.cap_s=60", { "pacing.cap_s": 60 }],
      ["pacing.cap_s=1800", { "pacing.cap_s": 1800 }],
    ]);
    // A shorter cap wakes the idle mind more often.
    expect(all.variants[0].wakes.length).toBeGreaterThan(all.variants[1].wakes.length);
    expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))).toEqual(all);
    for (const slug of ["a-short-memory-pacing.cap_s-60", "a-short-memory-pacing.cap_s-1800"]) {
      const one = parseEvalResults(readFileSync(join(out, slug, "results.json"), "utf8"));
      if (!one.ok) throw new Error(one.error);
      expect(one.results.variants?.map((v) => v.label)).toEqual(["pacing.cap_s=60", "pacing.cap_s=1800"]);
      expect(readdirSync(join(out, slug))).toContain(`${slug}.tar.gz`);
    }
    const table = await run(["eval", file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--vary", "pacing.cap_s=60,1800"]);
    expect(table.out).toMatch(/^ +pacing\.cap_s=60 +pacing\.cap_s=1800$/m);
    expect(table.out).toMatch(/^cat +pass +pass$/m);
  }, 180_000);

  it("names what is wrong with --seed, --vary and --out", async () => {
    const good = file("short.json", SCENARIO);
    const base = ["eval", good, "--base-url", server.url, "--model", "m"];
    expect((await run([...base, "--seed", "-3"])).err).toContain("--seed is a whole number");
    expect((await run([...base, "--vary", "pacing.cap_s=60"])).err).toContain("--vary takes path=v1,v2,… (two values or more)");
    expect((await run([...base, "--vary", "pacing.cap_s=60,60"])).err).toContain("--vary names a value twice");
    expect((await run([...base, "--vary", "pacing.cap_s=60,90", "--vary", "pacing.base_s=1,2"])).err).toContain("--vary once");
    expect((await run([...base, "--vary", "pacing.cap_s=60,90", "--set", "pacing.cap_s=5"])).err).toContain("--vary and --set both set pacing.cap_s");
    const badValue = await run([...base, "--vary", "pacing.cap_s=60,-1"]);
    expect(badValue.code).toBe(2);
    expect(badValue.err).toContain("with pacing.cap_s=-1 is not a scenario");
    writeFileSync(join(dir, "a-file"), "x");
    expect((await run([...base, "--out", join(dir, "a-file")])).err).toContain("is a file, not a folder");
  }, 60_000);
});

describe("reverie eval stopped (Ctrl-C)", () => {
  it("scores, prints and writes what was played", async () => {
    const args = parseEvalArgs([file("short.json", SCENARIO), "--base-url", server.url, "--model", "scripted", "--seed", "3", "--out", join(dir, "out-stopped"), "--json"]);
    if (args === "help" || "problem" in args) throw new Error("bad arguments");
    const stop = new AbortController();
    const out: string[] = [];
    // Stopped once the play is past its first simulated hour, as a person's Ctrl-C would.
    const err = (s: string) => {
      const h = /: ([\d.]+) of 2 simulated h/.exec(s);
      if (h && Number(h[1]) >= 1) stop.abort();
    };
    const code = await evalScenario(args, { out: (s) => void out.push(s), err }, "usage", stop.signal);
    expect(code).toBe(0);
    const printed = JSON.parse(out.join(""));
    expect(printed.complete).toBe(false);
    expect(printed.simulated_h).toBeGreaterThanOrEqual(1);
    expect(printed.simulated_h).toBeLessThan(2);
    const written = parseEvalResults(readFileSync(join(dir, "out-stopped", "results.json"), "utf8"));
    expect(written.ok && written.results.complete).toBe(false);
  }, 120_000);
});
