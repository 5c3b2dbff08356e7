// lib/mind/run/run.ts shellmRun, with the real Journal over an in-memory log, a
// scripted shell, and the model through the REAL modelPort (lib/llm/complete.ts)
// around MockLanguageModelV4. Then modelPort against the scripted HTTP server
// through the real OpenAI-compatible provider.
import net from "node:net";
import { APICallError } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { modelPort } from "../../../../lib/llm/complete";
import { createModel } from "../../../../lib/llm/model";
import { Journal } from "../../../../lib/mind/log/journal";
import { DEFAULT_NESTING, DEFAULT_RUN_LIMITS, shellmRun, type RunDeps, type RunLimits, type RunOutcome } from "../../../../lib/mind/run/run";
import { formatTs } from "../../../../lib/trajectory/schema";
import { startModelServer, type ModelServer } from "../../../fixtures/model-server";
import { FakeClock, until } from "../../helpers/fake-clock";
import { FakeShell, finalResult, type ShellScript } from "../../helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id } from "../../helpers/steps";

const F = "```";
const INSTRUCTIONS = "You are Reverie. Reply with one bash block.";
/** The n-th id the journal hands out. */
const jid = (n: number) => id(n, "000000000000");
const TRIGGER = id(900);
const WAKE = id(901);
const T0 = Date.parse("2025-01-01T00:00:00.000Z");

function setup(opts: {
  turns: Turn[] | ((n: number) => Turn);
  shell?: ShellScript;
  limits?: Partial<RunLimits>;
  env?: Record<string, string>;
  controller?: AbortController;
}) {
  const log = new MemoryStepLog();
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(typeof opts.turns === "function" ? (n) => (opts.turns as (n: number) => Turn)(n) : opts.turns);
  const shell = new FakeShell(opts.shell);
  const controller = opts.controller ?? new AbortController();
  const partials: string[] = [];
  const iterations: [string, number][] = [];
  const deps: RunDeps = {
    ports: { model: model.port, shell },
    config: { selfName: "Reverie", limits: { ...DEFAULT_RUN_LIMITS, ...opts.limits }, nesting: DEFAULT_NESTING },
    view: { instructions: INSTRUCTIONS },
    depth: 0,
    signal: controller.signal,
    emit: (e) => {
      if (e.type === "partial") partials.push(e.text);
      if (e.type === "status" && e.status.state === "thinking" && e.status.runId && e.status.iteration) iterations.push([e.status.runId, e.status.iteration]);
    },
  };
  const result: { outcome: RunOutcome | null } = { outcome: null };
  /** Runs once; returns how it ended (the whole outcome is in `result.outcome`). */
  const run = async () => {
    const scope = await journal.openRun({ model: model.port.name, trigger_step: TRIGGER, wake: WAKE, launched_by: "monolith" });
    const outcome = await shellmRun(deps, scope, { prompt: "Task: tidy the notes.", shell: { env: { ...(opts.env ?? {}) }, cwd: "/workspace" } });
    result.outcome = outcome;
    return { end: outcome.end, runId: outcome.runId, ...(outcome.error !== undefined ? { error: outcome.error } : {}) };
  };
  return { log, clock, journal, model, shell, controller, deps, partials, iterations, run, result };
}

/** A scripted turn's default usage, as the step records it. */
const MOCK_USAGE = { input_tokens: 10, output_tokens: 5, model: "mock/scripted" };
/** The fields every step in the run carries. */
const inRun = { run_id: jid(1), trigger_step: TRIGGER };
const header = { type: "shellm-run", step_id: jid(1), ts: formatTs(T0), model: "mock/scripted", trigger_step: TRIGGER, wake: WAKE, launched_by: "monolith" };
const promptStep = { type: "prompt", step_id: jid(2), ts: formatTs(T0), ...inRun, content: "Task: tidy the notes." };

describe("shellmRun: the FINAL contract", () => {
  it("writes shellm-run, prompt, reasoning, shell-output, final; final.content is FINAL; tokens from usage", async () => {
    const reply = "I will finish now.\n\n" + F + "bash\necho hi\nFINAL=done\n" + F;
    const t = setup({ turns: [{ text: reply, usage: { input: 321, output: 45 } }] });
    t.shell.setScript((_code, req) => {
      t.clock.advance(1500); // the command takes 1.5 s
      return finalResult(req, "done", { stdout: "hi\n", execS: 1.23456 });
    });
    const outcome = await t.run();
    expect(outcome).toEqual({ end: "final", runId: jid(1) });
    expect(t.log.steps).toEqual([
      header,
      promptStep,
      { type: "reasoning", step_id: jid(3), ts: formatTs(T0), ...inRun, thought: "I will finish now.", cmd: "echo hi\nFINAL=done", in_tok: 321, out_tok: 45, usage: { input_tokens: 321, output_tokens: 45, model: "mock/scripted" } },
      { type: "shell-output", step_id: jid(4), ts: formatTs(T0 + 1500), ...inRun, stdout: "hi\n", stderr: "", exit: 0, exec_s: 1.23456, timed_out: false },
      { type: "final", step_id: jid(5), ts: formatTs(T0 + 1500), ...inRun, content: "done" },
    ]);
    expect(t.shell.calls).toEqual([{ code: "echo hi\nFINAL=done", env: {}, cwd: "/workspace" }]);
    // The whole outcome: the answer, the step that ended the run, and the shell it leaves (unchanged: FINAL is not carried).
    expect(t.result.outcome).toEqual({ end: "final", runId: jid(1), answer: "done", lastStepId: jid(5), calls: 1, shell: { env: {}, cwd: "/workspace" }, shellChanged: false });
  });

  it("the model is called with the instructions and the projected trajectory", async () => {
    const t = setup({ turns: [F + "bash\nFINAL=ok\n" + F], shell: (_c, req) => finalResult(req, "ok") });
    await t.run();
    expect(t.model.calls()).toEqual([
      [
        { role: "system", text: INSTRUCTIONS },
        { role: "user", text: "Task: tidy the notes." },
      ],
    ]);
  });

  it("streams the reply to onPartial as growing prefixes, then clears it; reports iterations", async () => {
    const reply = "Short.\n" + F + "bash\nFINAL=x\n" + F; // 26 characters, sent 7 at a time
    const t = setup({ turns: [{ text: reply, chunk: 7 }], shell: (_c, req) => finalResult(req, "x") });
    await t.run();
    expect(t.partials).toEqual([reply.slice(0, 7), reply.slice(0, 14), reply.slice(0, 21), reply, ""]);
    expect(t.iterations).toEqual([[jid(1), 1]]);
  });

  it("without FINAL the run goes on, and the next call sees the previous output", async () => {
    const t = setup({
      turns: ["Listing first.\n" + F + "bash\nls\n" + F, "Both are there.\n" + F + "bash\nFINAL=listed\n" + F],
      shell: (code, req) => (code === "ls" ? { stdout: "a.txt\nb.txt\n" } : finalResult(req, "listed")),
    });
    expect(await t.run()).toEqual({ end: "final", runId: jid(1) });
    expect(t.model.calls()).toEqual([
      [
        { role: "system", text: INSTRUCTIONS },
        { role: "user", text: "Task: tidy the notes." },
      ],
      [
        { role: "system", text: INSTRUCTIONS },
        { role: "user", text: "Task: tidy the notes." },
        { role: "assistant", text: "Listing first.\n\n" + F + "bash\nls\n" + F },
        { role: "user", text: "[output exit=0]\na.txt\nb.txt\n" },
      ],
    ]);
    expect(t.log.steps.map((s) => s.type)).toEqual(["shellm-run", "prompt", "reasoning", "shell-output", "reasoning", "shell-output", "final"]);
    expect(t.log.steps.slice(1).every((s) => s.run_id === jid(1))).toBe(true);
    expect(t.iterations).toEqual([
      [jid(1), 1],
      [jid(1), 2],
    ]);
  });

  it("an empty FINAL still ends the run", async () => {
    const t = setup({ turns: [F + "bash\nFINAL=\n" + F], shell: (_c, req) => finalResult(req, "") });
    expect((await t.run()).end).toBe("final");
    expect(t.log.steps.at(-1)).toMatchObject({ type: "final", content: "" });
  });
});

describe("shellmRun: guards", () => {
  it("ends with error reason iterations after maxIterations without FINAL", async () => {
    // Each reply differs, so the loop-breaker (the same reply again and again) stays out of it.
    const t = setup({ turns: (n) => F + `bash\necho again ${n}\n` + F, shell: () => ({ stdout: "again\n" }), limits: { maxIterations: 3 } });
    expect(await t.run()).toEqual({ end: "error", runId: jid(1) });
    expect(t.model.mock.doStreamCalls).toHaveLength(3);
    expect(t.log.steps.map((s) => s.type)).toEqual([
      "shellm-run",
      "prompt",
      "reasoning",
      "shell-output",
      "reasoning",
      "shell-output",
      "reasoning",
      "shell-output",
      "error",
    ]);
    expect(t.log.steps.at(-1)).toEqual({
      type: "error",
      step_id: jid(9),
      ts: formatTs(T0),
      ...inRun,
      reason: "iterations",
      content: "No FINAL after 3 iterations; the run was ended.",
    });
  });

  it("stall: the same failing command three times", async () => {
    const t = setup({ turns: [F + "bash\ncat missing.txt\n" + F], shell: () => ({ exit: 1, stderr: "cat: missing.txt: No such file or directory\n" }) });
    expect(await t.run()).toEqual({ end: "error", runId: jid(1) });
    expect(t.shell.calls).toHaveLength(3);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", ...inRun, reason: "stall", content: "Run stopped: the same command failed 3 times." });
  });

  it("stall: the same failing command three times, even with successes in between", async () => {
    const bad = F + "bash\nfalse\n" + F;
    const good = F + "bash\ntrue\n" + F;
    const t = setup({ turns: [bad, good, bad, good, bad, good], shell: (code) => ({ exit: code === "false" ? 1 : 0 }) });
    expect((await t.run()).end).toBe("error");
    expect(t.shell.calls.map((c) => c.code)).toEqual(["false", "true", "false", "true", "false"]);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "stall", content: "Run stopped: the same command failed 3 times." });
  });

  it("stall: ten different failing commands in a row", async () => {
    const t = setup({ turns: (n) => F + `bash\nfalse ${n}\n` + F, shell: () => ({ exit: 2 }) });
    expect((await t.run()).end).toBe("error");
    expect(t.shell.calls.map((c) => c.code)).toEqual(Array.from({ length: 10 }, (_, n) => `false ${n}`));
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", ...inRun, reason: "stall", content: "Run stopped: 10 commands failed in a row." });
  });

  it("a success resets the count of failures in a row", async () => {
    // 9 failures, a success, 2 failures: no stall; the run ends at 12 iterations.
    const t = setup({ turns: (n) => F + `bash\nstep ${n}\n` + F, shell: (_c, _r, call) => ({ exit: call === 9 ? 0 : 1 }) });
    expect((await t.run()).end).toBe("error");
    expect(t.shell.calls).toHaveLength(12);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "iterations", content: "No FINAL after 12 iterations; the run was ended." });
  });
});

describe("shellmRun: replies without code", () => {
  it("a reply without a fence is a thought and ends the run", async () => {
    const t = setup({ turns: ["  I would rather think about the tides today.\n"] });
    expect(await t.run()).toEqual({ end: "thought", runId: jid(1) });
    expect(t.log.steps).toEqual([
      header,
      promptStep,
      { type: "thought", step_id: jid(3), ts: formatTs(T0), ...inRun, content: "I would rather think about the tides today.", source: "monolith", usage: MOCK_USAGE },
    ]);
    expect(t.shell.calls).toEqual([]);
  });

  it("a reply with only a python block is a thought too (nothing runs)", async () => {
    const text = "Like this:\n" + F + "python\nprint(1)\n" + F;
    const t = setup({ turns: [text] });
    expect((await t.run()).end).toBe("thought");
    expect(t.log.steps.at(-1)).toMatchObject({ type: "thought", content: text });
    expect(t.shell.calls).toEqual([]);
  });

  it.each([
    ["empty", ""],
    ["blank", "  \n\n\t "],
  ])("an %s reply is an error empty-reply", async (_name, text) => {
    const t = setup({ turns: [text] });
    expect(await t.run()).toEqual({ end: "error", runId: jid(1) });
    expect(t.log.steps).toEqual([
      header,
      promptStep,
      { type: "error", step_id: jid(3), ts: formatTs(T0), ...inRun, reason: "empty-reply", content: "The model sent an empty reply.", usage: MOCK_USAGE },
    ]);
  });
});

describe("shellmRun: model errors and stopping", () => {
  it("doStream throwing → error reason model, end model-error with the message", async () => {
    const t = setup({ turns: [{ throws: new Error("model exploded") }] });
    expect(await t.run()).toEqual({ end: "model-error", runId: jid(1), error: "model exploded" });
    expect(t.log.steps).toEqual([
      header,
      promptStep,
      { type: "error", step_id: jid(3), ts: formatTs(T0), ...inRun, reason: "model", content: "model exploded" },
    ]);
  });

  it("a stream with an error part (after some text) → error reason model", async () => {
    const t = setup({ turns: [{ text: "I was going to", streamError: new Error("overloaded") }] });
    expect(await t.run()).toEqual({ end: "model-error", runId: jid(1), error: "overloaded" });
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "model", content: "overloaded" });
    expect(t.shell.calls).toEqual([]);
  });

  it("an HTTP error from the provider reads with its status and URL", async () => {
    const error = new APICallError({
      message: "Incorrect API key",
      url: "https://api.example.com/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 401,
      isRetryable: false,
    });
    const t = setup({ turns: [{ throws: error }] });
    const outcome = await t.run();
    // A 401 also says what it means (lib/llm/model-errors.ts).
    expect(outcome.error).toBe("HTTP 401 from https://api.example.com/v1/chat/completions: Incorrect API key. The provider refused the API key: fix it in Settings.");
  });

  it("a model error after a good iteration keeps the earlier steps", async () => {
    const t = setup({ turns: [F + "bash\nls\n" + F, { throws: new Error("gone") }] });
    expect((await t.run()).end).toBe("model-error");
    expect(t.log.steps.map((s) => s.type)).toEqual(["shellm-run", "prompt", "reasoning", "shell-output", "error"]);
  });

  it("aborted before it starts: error reason stopped, the model is not called", async () => {
    const controller = new AbortController();
    controller.abort();
    const t = setup({ turns: ["never"], controller });
    expect(await t.run()).toEqual({ end: "stopped", runId: jid(1) });
    expect(t.log.steps).toEqual([
      header,
      promptStep,
      { type: "error", step_id: jid(3), ts: formatTs(T0), ...inRun, reason: "stopped", content: "Stopped by its human in the middle of the run." },
    ]);
    expect(t.model.mock.doStreamCalls).toHaveLength(0);
  });

  it("aborted while the model streams: error reason stopped, nothing runs", async () => {
    const controller = new AbortController();
    const t = setup({
      controller,
      turns: () => {
        controller.abort();
        return F + "bash\nrm -rf notes\n" + F;
      },
    });
    expect((await t.run()).end).toBe("stopped");
    expect(t.log.steps.map((s) => s.type)).toEqual(["shellm-run", "prompt", "error"]);
    expect(t.log.steps.at(-1)).toMatchObject({ reason: "stopped" });
    expect(t.shell.calls).toEqual([]);
  });

  it("aborted while a command runs: its output is kept, then error reason stopped (even if it set FINAL)", async () => {
    const controller = new AbortController();
    const t = setup({
      controller,
      turns: [F + "bash\nsleep 100; FINAL=slept\n" + F],
      shell: (_c, req) => {
        controller.abort();
        return finalResult(req, "slept", { exit: 143, stderr: "Terminated\n" });
      },
    });
    expect((await t.run()).end).toBe("stopped");
    expect(t.log.steps.slice(3)).toEqual([
      { type: "shell-output", step_id: jid(4), ts: formatTs(T0), ...inRun, stdout: "", stderr: "Terminated\n", exit: 143, exec_s: 0.01, timed_out: false },
      { type: "error", step_id: jid(5), ts: formatTs(T0), ...inRun, reason: "stopped", content: "Stopped by its human in the middle of the run." },
    ]);
  });
});

describe("shellmRun: guards", () => {
  it("the same reply three times in a row ends the run (the loop-breaker)", async () => {
    const t = setup({ turns: [F + "bash\necho same\n" + F], shell: () => ({ stdout: "same\n" }) });
    expect(await t.run()).toEqual({ end: "error", runId: jid(1) });
    expect(t.model.mock.doStreamCalls).toHaveLength(3);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "repeat", content: "Run stopped: the same reply 3 times in a row." });
  });

  it("ends the run at its token limit", async () => {
    const t = setup({ turns: (n) => ({ text: F + `bash\necho ${n}\n` + F, usage: { input: 600, output: 100 } }), shell: () => ({ stdout: "x\n" }), limits: { maxTokens: 2000 } });
    expect(await t.run()).toEqual({ end: "error", runId: jid(1) });
    expect(t.model.mock.doStreamCalls).toHaveLength(3);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "tokens", content: "Run stopped: it used 2100 model tokens (the limit is 2000)." });
  });

  it("a run that may not reply is given a chat port that says why", async () => {
    const t = setup({ turns: [F + "bash\nFINAL=ok\n" + F], shell: (_c, req) => finalResult(req, "ok") });
    t.deps.config.replies = false;
    await t.run();
    expect(t.shell.scopes[0]?.chat.replyRefusal).toMatch(/^replies to messages are the responder's/);
  });
});

describe("shellmRun: the shell between iterations", () => {
  it("carries env and cwd from one exec to the next, without FINAL, PWD and the shell's own variables", async () => {
    const t = setup({
      env: { HOME: "/workspace" },
      turns: [F + "bash\nexport X=1\ncd sub\n" + F, F + "bash\nY=2\nFINAL=ok\n" + F],
      shell: (code, req) =>
        code.startsWith("export")
          ? { env: { ...req.env, X: "1", PWD: "/workspace/sub", OLDPWD: "/workspace", "?": "0", _: "cd" }, cwd: "/workspace/sub" }
          : finalResult(req, "ok", { env: { Y: "2", PWD: "/workspace/sub", IFS: " " } }),
    });
    await t.run();
    expect(t.shell.calls).toEqual([
      { code: "export X=1\ncd sub", env: { HOME: "/workspace" }, cwd: "/workspace" },
      { code: "Y=2\nFINAL=ok", env: { HOME: "/workspace", X: "1" }, cwd: "/workspace/sub" },
    ]);
    expect(t.result.outcome?.shell).toEqual({ env: { HOME: "/workspace", X: "1", Y: "2" }, cwd: "/workspace/sub" });
    expect(t.result.outcome?.shellChanged).toBe(true);
  });

  it("says whether its blocks changed the shell's env or cwd (what its home keeps): a new variable, a changed value, a removed one, another directory", async () => {
    const changed = async (env: Record<string, string>, result: (req: { env: Record<string, string>; cwd: string }) => { env?: Record<string, string>; cwd?: string }) => {
      const t = setup({ env, turns: [F + "bash\nchange\nFINAL=ok\n" + F], shell: (_c, req) => {
        // The block's whole env (what it removed is gone), with FINAL set.
        const r = result(req);
        return { ...r, env: { ...(r.env ?? req.env), FINAL: "ok" } };
      } });
      await t.run();
      return t.result.outcome?.shellChanged;
    };
    expect(await changed({ A: "1" }, (req) => ({ env: { ...req.env, B: "2" } }))).toBe(true);
    expect(await changed({ A: "1" }, () => ({ env: { A: "2" } }))).toBe(true);
    expect(await changed({ A: "1", B: "2" }, () => ({ env: { A: "1" } }))).toBe(true);
    expect(await changed({ A: "1" }, () => ({ cwd: "/workspace/notes" }))).toBe(true);
    // The same variables and directory (in another order, with FINAL and the shell's own that are not carried): unchanged.
    expect(await changed({ A: "1", B: "2" }, () => ({ env: { B: "2", A: "1", PWD: "/workspace", "?": "0" }, cwd: "/workspace" }))).toBe(false);
    expect(await changed({}, () => ({}))).toBe(false);
  });

  it("an output over 4096 bytes keeps 4096 bytes inline and the whole text in a blob", async () => {
    const stdout = "x".repeat(5000);
    const stderr = "é".repeat(2100); // 4200 bytes: cut on a character boundary
    const t = setup({ turns: [F + "bash\nbig\n" + F], shell: (_c, req) => finalResult(req, "ok", { stdout, stderr }) });
    await t.run();
    const outId = jid(4);
    expect(t.log.steps[3]).toEqual({
      type: "shell-output",
      step_id: outId,
      ts: formatTs(T0),
      ...inRun,
      stdout: "x".repeat(4096),
      stderr: "é".repeat(2048),
      exit: 0,
      exec_s: 0.01,
      timed_out: false,
      stdout_ref: `blobs/${outId}.stdout`,
      stdout_bytes: 5000,
      stdout_truncated: true,
      stderr_ref: `blobs/${outId}.stderr`,
      stderr_bytes: 4200,
      stderr_truncated: true,
    });
    expect([...t.log.blobs.entries()]).toEqual([
      [`${outId}.stdout`, stdout],
      [`${outId}.stderr`, stderr],
    ]);
  });

  it("an output of exactly 4096 bytes stays inline, with no blob", async () => {
    const t = setup({ turns: [F + "bash\nx\n" + F], shell: (_c, req) => finalResult(req, "ok", { stdout: "y".repeat(4096) }) });
    await t.run();
    expect(t.log.steps[3]).not.toHaveProperty("stdout_ref");
    expect((t.log.steps[3] as { stdout: string }).stdout).toHaveLength(4096);
    expect(t.log.blobs.size).toBe(0);
  });

  it("extra blocks are not run, and a note in stderr says so", async () => {
    const reply = ["Two things.", F + "bash", "echo one", F, F + "bash", "echo two", F, F + "sh", "echo three", F].join("\n");
    const t = setup({ turns: [reply], shell: (_c, req) => finalResult(req, "ok", { stdout: "one\n", stderr: "warning: x\n" }) });
    await t.run();
    expect(t.shell.calls.map((c) => c.code)).toEqual(["echo one"]);
    expect(t.log.steps[3]).toMatchObject({
      type: "shell-output",
      stdout: "one\n",
      stderr: "[reverie] 2 more bash block(s) in the reply were not run: send one block per reply.\nwarning: x\n",
    });
  });
});

describe("modelPort against the scripted server, through the real provider", () => {
  let server: ModelServer;
  const port = async () => modelPort(await createModel({ provider: "openai-compatible", baseURL: server.url, model: "scripted" }), "openai-compatible/scripted");
  const ask = (p: Awaited<ReturnType<typeof port>>, onDelta?: (t: string) => void, signal = new AbortController().signal) =>
    p.complete({ instructions: INSTRUCTIONS, messages: [{ role: "user", content: "What now?" }], signal, onDelta });

  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("assembles the streamed text, calls onDelta with growing prefixes, and reads the usage", async () => {
    const text = "I will look at my notes first.\n\n" + F + "bash\nls -la notes/\ncat notes/today.md\nFINAL=read\n" + F;
    server.enqueue({ text, usage: { prompt_tokens: 12, completion_tokens: 34 } });
    const deltas: string[] = [];
    expect(await ask(await port(), (t) => deltas.push(t))).toEqual({
      ok: true,
      text,
      inTokens: 12,
      outTokens: 34,
      // The step's usage: the server reports no cache or reasoning details, which the provider reads as 0.
      usage: { input_tokens: 12, cached_input_tokens: 0, output_tokens: 34, reasoning_tokens: 0, model: "openai-compatible/scripted" },
    });
    expect(deltas).toHaveLength(Math.ceil(text.length / 20)); // the server sends 20 characters a chunk
    expect(deltas.at(-1)).toBe(text);
    deltas.forEach((d, i) => {
      expect(text.startsWith(d)).toBe(true);
      if (i > 0) expect(d.length).toBeGreaterThan(deltas[i - 1]!.length);
    });
    expect(server.requests.map((r) => ({ stream: r.stream, model: r.model, messages: r.messages }))).toEqual([
      {
        stream: true,
        model: "scripted",
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: "What now?" },
        ],
      },
    ]);
  });

  it("an HTTP 500 → ok:false with the status in the message", async () => {
    server.setResponder(() => ({ status: 500, errorBody: "the GPU caught fire" }));
    expect(await ask(await port())).toEqual({
      ok: false,
      error: `HTTP 500 from ${server.url}/chat/completions: the GPU caught fire`,
      aborted: false,
    });
  });

  it("a malformed stream → ok:false (the partial text is not passed off as a reply)", async () => {
    server.setResponder(() => ({ text: "partial text that is longer than twenty chars", malformed: true }));
    const result = await ask(await port());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.aborted).toBe(false);
    expect(result.error).toMatch(/^JSON parsing failed: Text: \{not json\./);
  });

  it("connection refused → ok:false with a readable message", async () => {
    const free = await unusedPort();
    const refused = modelPort(await createModel({ provider: "openai-compatible", baseURL: `http://127.0.0.1:${free}/v1`, model: "scripted" }), "x");
    const result = await ask(refused);
    expect(result).toEqual({
      ok: false,
      aborted: false,
      error: expect.stringMatching(new RegExp(`^no response from http://127\\.0\\.0\\.1:${free}/v1/chat/completions: Cannot connect to API: .*ECONNREFUSED`)),
    });
  });

  it("aborting a call that hangs → ok:false, aborted", async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = ask(await port(), undefined, controller.signal);
    await until(() => server.requests.length === 1, "the request reached the server");
    controller.abort();
    expect(await pending).toEqual({ ok: false, error: "aborted", aborted: true });
  });
});

function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
