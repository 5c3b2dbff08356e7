// lib/shell/stop.ts against the installed just-bash (the trick it plays, lowering
// a running interpreter's limits so the script ends as a limit would, output
// intact, depends on just-bash internals: an upgrade that breaks it fails
// here), and lib/shell/watchdog.ts with fake timers.
import { Bash, defineCommand, type BashExecResult, type BashOptions } from "just-bash";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { limitNamed, softStop } from "@/lib/shell/stop";
import { startWatchdog, type StopReason } from "@/lib/shell/watchdog";

type Limits = NonNullable<BashOptions["executionLimits"]>;

const result = (r: BashExecResult) => ({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });

const TOO_MANY_COMMANDS_0 = "bash: too many commands executed (>0), increase executionLimits.maxCommandCount\n";
const loopLimit = (kind: "for" | "while", n: number) => `bash: ${kind} loop: too many iterations (${n}), increase executionLimits.maxLoopIterations\n`;

/** A Bash with a `stop-me` command that asks for a soft stop of its own interpreter, at a known point of the script. */
function stoppable(limits: Limits = { maxCommandCount: 500, maxLoopIterations: 500 }) {
  const box: { bash?: Bash; restore?: () => void } = {};
  const stopMe = defineCommand("stop-me", async () => {
    if (box.bash) box.restore = softStop(box.bash).restore;
    return { stdout: "stopping\n", stderr: "", exitCode: 0 };
  });
  box.bash = new Bash({ customCommands: [stopMe], executionLimits: limits });
  return box as { bash: Bash; restore?: () => void };
}

describe("softStop", () => {
  it("works on the installed just-bash", () => {
    expect(softStop(new Bash()).supported).toBe(true);
  });

  it("says so, and does nothing, on an interpreter whose limits it cannot find", () => {
    const stop = softStop({} as Bash);
    expect(stop.supported).toBe(false);
    expect(() => stop.restore()).not.toThrow();
  });

  it("ends the script at its next command, keeping the output of the statements that finished", async () => {
    const { bash } = stoppable();
    expect(result(await bash.exec("echo one; echo two; stop-me; echo never"))).toEqual({
      stdout: "one\ntwo\nstopping\n",
      stderr: TOO_MANY_COMMANDS_0,
      exitCode: 126,
    });
  });

  it("keeps the output of the loop iterations that ran", async () => {
    const forLoop = stoppable();
    expect(result(await forLoop.bash.exec("for i in 1 2 3 4; do echo $i; [ $i = 2 ] && stop-me; done; echo never"))).toEqual({
      stdout: "1\n2\nstopping\n",
      stderr: loopLimit("for", 0),
      exitCode: 126,
    });
    const whileLoop = stoppable();
    expect(result(await whileLoop.bash.exec("i=0; while true; do i=$((i+1)); echo $i; [ $i = 3 ] && stop-me; done"))).toEqual({
      stdout: "1\n2\n3\nstopping\n",
      stderr: loopLimit("while", 0),
      exitCode: 126,
    });
  });

  it("stops a script from outside while it sleeps (as the watchdog does), keeping what it printed", async () => {
    const bash = new Bash({ executionLimits: { maxCommandCount: 500, maxLoopIterations: 500 } });
    setTimeout(() => softStop(bash), 60);
    expect(result(await bash.exec("echo a; sleep 0.2; echo never"))).toEqual({ stdout: "a\n", stderr: TOO_MANY_COMMANDS_0, exitCode: 126 });
  });

  it("stops a looping script from outside, keeping the lines of the iterations that ran", async () => {
    const bash = new Bash({ executionLimits: { maxCommandCount: 500, maxLoopIterations: 500 } });
    setTimeout(() => softStop(bash), 120);
    const r = await bash.exec("echo one; for i in 1 2 3 4 5 6 7 8 9 10; do echo i$i; sleep 0.05; done; echo never");
    expect({ stderr: r.stderr, exitCode: r.exitCode }).toEqual({ stderr: loopLimit("for", 0), exitCode: 126 });
    // How many iterations ran depends on the machine; they are whole and in order.
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("one");
    expect(lines.slice(1)).toEqual(Array.from({ length: lines.length - 1 }, (_, i) => `i${i + 1}`));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThan(11);
  });

  it("lasts until restore(): the lowered limits stay on the interpreter", async () => {
    const { bash } = stoppable();
    await bash.exec("stop-me");
    expect(result(await bash.exec("echo next"))).toEqual({ stdout: "", stderr: TOO_MANY_COMMANDS_0, exitCode: 126 });
  });

  it("restore() puts back exactly the limits there were", async () => {
    const box = stoppable({ maxCommandCount: 50, maxLoopIterations: 20 });
    await box.bash.exec("echo a; stop-me; echo never");
    box.restore?.();
    expect(result(await box.bash.exec("echo next"))).toEqual({ stdout: "next\n", stderr: "", exitCode: 0 });
    // The loop limit is 20 again: 20 iterations run, 21 do not.
    expect(result(await box.bash.exec("for i in {1..20}; do :; done; echo done"))).toEqual({ stdout: "done\n", stderr: "", exitCode: 0 });
    expect(result(await box.bash.exec("for i in {1..21}; do :; done"))).toEqual({ stdout: "", stderr: loopLimit("for", 20), exitCode: 126 });
    // The command limit is 50 again: 15 iterations of 4 commands pass it.
    expect(result(await box.bash.exec("for i in {1..15}; do :; :; :; :; done"))).toEqual({
      stdout: "",
      stderr: "bash: too many commands executed (>50), increase executionLimits.maxCommandCount\n",
      exitCode: 126,
    });
  });
});

describe("the braces the sandbox wraps a block in", () => {
  it("keep what finished when the exec is aborted; without them it is lost", async () => {
    const bash = new Bash();
    const run = async (code: string) => {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 60);
      return result(await bash.exec(code, { signal: abort.signal, rawScript: true }));
    };
    expect(await run("{\necho a; sleep 5; echo never\n}")).toEqual({ stdout: "a\n", stderr: "bash: execution aborted\n", exitCode: 124 });
    expect(await run("echo a; sleep 5; echo never")).toEqual({ stdout: "", stderr: "bash: execution aborted\n", exitCode: 124 });
  });
});

describe("limitNamed", () => {
  // Each message is the installed just-bash's own, captured by running the script: a change of wording fails here.
  const cases: { what: string; code: string; limits: Limits; stderr: string; limit: string | undefined }[] = [
    {
      what: "the command count",
      code: "while true; do :; done",
      limits: { maxCommandCount: 50 },
      stderr: "bash: too many commands executed (>50), increase executionLimits.maxCommandCount\n",
      limit: "commands",
    },
    { what: "a while loop", code: "while true; do :; done", limits: { maxLoopIterations: 50 }, stderr: loopLimit("while", 50), limit: "commands" },
    { what: "a for loop", code: "for i in {1..100}; do :; done", limits: { maxLoopIterations: 50 }, stderr: loopLimit("for", 50), limit: "commands" },
    {
      what: "an until loop",
      code: "until false; do :; done",
      limits: { maxLoopIterations: 50 },
      stderr: "bash: until loop: too many iterations (50), increase executionLimits.maxLoopIterations\n",
      limit: "commands",
    },
    { what: "seq's iterations", code: "seq 1 100 > /dev/null", limits: { maxLoopIterations: 50 }, stderr: "bash: seq: iteration limit exceeded (50)\n", limit: "commands" },
    {
      what: "function recursion",
      code: "f(){ f; }; f",
      limits: { maxCallDepth: 20 },
      stderr: "bash: f: maximum recursion depth (20) exceeded, increase executionLimits.maxCallDepth\n",
      limit: "recursion",
    },
    {
      what: "source nesting",
      code: "echo 'source /tmp/s.sh' > /tmp/s.sh; source /tmp/s.sh",
      limits: { maxSourceDepth: 5 },
      stderr: "bash: source: maximum nesting depth (5) exceeded, increase executionLimits.maxSourceDepth\n",
      limit: "recursion",
    },
    {
      what: "a script that runs itself with bash",
      code: "echo 'bash /tmp/b.sh' > /tmp/b.sh; bash /tmp/b.sh",
      limits: {},
      stderr: "bash: maximum nested execution depth (64) exceeded\n",
      limit: "recursion",
    },
    {
      what: "the total output",
      code: "echo 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789",
      limits: { maxOutputSize: 100 },
      stderr: "bash: pipeline: total output size exceeded (>100 bytes), increase executionLimits.maxOutputSize\n",
      limit: "output",
    },
    { what: "one command's output", code: "seq 1 100", limits: { maxOutputSize: 100 }, stderr: "bash: seq: output size limit exceeded (100 bytes)\n", limit: "output" },
    { what: "the deadline, in a command", code: "sleep 1", limits: { maxExecutionTimeMs: 50 }, stderr: "bash: sleep exceeded its execution deadline\n", limit: "wall" },
    {
      what: "the deadline, in a loop",
      code: "while true; do :; done",
      limits: { maxExecutionTimeMs: 50, maxCommandCount: 1e9, maxLoopIterations: 1e9 },
      stderr: "bash: execution exceeded execution deadline (50ms)\n",
      limit: "wall",
    },
    { what: "an ordinary failure", code: "cat nope", limits: {}, stderr: "cat: nope: No such file or directory\n", limit: undefined },
  ];

  for (const c of cases) {
    it(`${c.limit ?? "nothing"} for ${c.what}`, async () => {
      const r = await new Bash({ executionLimits: c.limits }).exec(c.code);
      expect(r.stderr).toBe(c.stderr);
      expect(limitNamed(r.stderr)).toBe(c.limit);
    });
  }

  it("commands for a soft stop's line, wherever it comes in stderr", async () => {
    const { bash } = stoppable();
    const r = await bash.exec("echo warn >&2; stop-me; echo never");
    expect(r.stderr).toBe(`warn\n${TOO_MANY_COMMANDS_0}`);
    expect(limitNamed(r.stderr)).toBe("commands");
  });
});

describe("startWatchdog", () => {
  let stops: StopReason[];
  const start = (silenceMs = 300, wallMs = 1000) => startWatchdog({ silenceMs, wallMs, onStop: (why) => stops.push(why) });

  beforeEach(() => {
    vi.useFakeTimers();
    stops = [];
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("stops after silenceMs without a sign of life", () => {
    const dog = start();
    vi.advanceTimersByTime(299);
    expect([stops, dog.reason]).toEqual([[], null]);
    vi.advanceTimersByTime(1);
    expect([stops, dog.reason]).toEqual([["silence"], "silence"]);
  });

  it("each beacon gives it silenceMs more", () => {
    const dog = start();
    vi.advanceTimersByTime(250);
    dog.beacon();
    vi.advanceTimersByTime(250);
    dog.beacon();
    vi.advanceTimersByTime(299);
    expect(stops).toEqual([]);
    vi.advanceTimersByTime(1);
    expect([stops, dog.reason]).toEqual([["silence"], "silence"]);
  });

  it("stops at wallMs whatever the beacons", () => {
    const dog = start(300, 1000);
    for (let t = 0; t < 999; t += 111) {
      dog.beacon();
      vi.advanceTimersByTime(111);
    }
    expect(stops).toEqual([]);
    vi.advanceTimersByTime(1000 - 999);
    expect([stops, dog.reason]).toEqual([["wall"], "wall"]);
  });

  it("stops once: no second reason, and beacons after the stop change nothing", () => {
    const dog = start(300, 1000);
    vi.advanceTimersByTime(300);
    dog.beacon();
    vi.advanceTimersByTime(5000);
    expect([stops, dog.reason]).toEqual([["silence"], "silence"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does nothing once disposed", () => {
    const dog = start(300, 1000);
    vi.advanceTimersByTime(200);
    dog.dispose();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect([stops, dog.reason]).toEqual([[], null]);
  });
});
