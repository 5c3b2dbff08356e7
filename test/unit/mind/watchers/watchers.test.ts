// The mind's watchers (lib/mind/watchers/watchers.ts; issue 24, part 4) wired as
// lib/home/wire-mind.ts wires them, over the real just-bash sandbox and the
// mind's SelfLedger (helpers/wired-watchers.ts): after each step of the types
// it names, a watcher runs as recorded, with the step's JSON on stdin, within
// its own limits; what it prints is an observation the model reads; three
// failures in a row turn it off.
import { beforeEach, describe, expect, it } from "vitest";
import { renderStep } from "@/lib/context/project";
import { FIXED_LIMITS } from "@/lib/shell/limits";
import { isKind, stampStep, type Step } from "@/lib/trajectory/schema";
import { ROOT_TRAJ } from "../../helpers/memory-log";
import { wireWatchers, type WiredWatchers } from "../../helpers/wired-watchers";

let w: WiredWatchers;

beforeEach(async () => {
  w = await wireWatchers();
});

/** What a step says, in short: its type, where it came from, its text. */
const brief = (s: Step) => [s.type, s.source, (s as { content?: string }).content];
const after = async (step: Step) => (await w.steps(step.step_id)).map(brief);

describe("the mind's watchers", () => {
  it("a watcher on thought runs after each thought with the step as JSON on stdin; what it prints is an observation watcher:NAME, read by the model as [watcher NAME]", async () => {
    await w.block(`watch add echo --on thought --run 'jq -c "{type, content, id: .step_id}"'`);
    const thought = await w.think("The kettle sings.");
    const steps = await w.steps(thought.step_id);
    expect(steps.map(brief)).toEqual([["observation", "watcher:echo", `{"type":"thought","content":"The kettle sings.","id":"${thought.step_id}"}`]]);
    expect(steps[0]?.trigger_step).toBe(thought.step_id);
    expect(renderStep(steps[0] as Step, "Ada")).toEqual({ role: "user", content: `[watcher echo] {"type":"thought","content":"The kettle sings.","id":"${thought.step_id}"}` });
  });

  it("its output is the mind's own step but not its work: a wake with nothing else new stays idle for the pacing", async () => {
    await w.block("watch add woke --on wake --run 'echo awake'");
    const work = w.journal.workCount();
    const wake = await w.journal.append({ type: "wake", reason: "scheduled", level: 2, delay_s: 10, source: "monolith" });
    await w.watchers.idle();
    expect(await after(wake)).toEqual([["observation", "watcher:woke", "awake"]]);
    expect(w.journal.workCount()).toBe(work);
    expect(w.journal.wrote((await w.steps(wake.step_id))[0]?.step_id ?? "")).toBe(true);
  });

  it("runs as its trajectory records it: a file no step records yet does not run, a change runs from the block's end", async () => {
    // Written outside a block (a crash before its settle, say): on disk, not recorded.
    await w.fs.writeFile("/workspace/self/watchers/early.sh", "# on: thought\necho early\n");
    const before = await w.think("one");
    expect(await after(before)).toEqual([]);
    await w.block("echo 'echo changed' >> self/watchers/early.sh");
    const recorded = await w.think("two");
    expect(await after(recorded)).toEqual([["observation", "watcher:early", "early\nchanged"]]);
  });

  it("what a watcher's run changes in self/ is recorded at the end of the next block, which need not touch self/", async () => {
    await w.block("watch add scribe --on thought --run 'echo \"- $(jq -r .content)\" >> self/persona.md'");
    await w.think("A line for my persona.");
    expect((await w.steps()).filter((s) => isKind(s, "self-edit") && s.path === "self/persona.md").length).toBe(1);
    await w.block("echo elsewhere > notes.md");
    const edits = (await w.steps()).filter((s) => isKind(s, "self-edit") && s.path === "self/persona.md");
    expect(edits.length).toBe(2);
    expect(edits.at(-1)?.by).toEqual({ kind: "mind", run: w.run.runId, traj: ROOT_TRAJ });
    expect(w.ledger.texts()["persona.md"]?.text).toBe(`${await w.fs.readFile("/workspace/self/persona.md")}`);
    expect(await w.fs.readFile("/workspace/self/persona.md")).toMatch(/- A line for my persona\.\n$/);
    // Nothing more to record: a block that writes nothing there records nothing.
    const recorded = (await w.steps()).length;
    await w.block("true");
    expect((await w.steps()).length).toBe(recorded);
  });

  it("only after the types it names; never after a watcher's output (no loops), nor a nested run's steps; a person's message the home hands over starts it once", async () => {
    await w.block("watch add seen --on observation,message --run 'echo \"seen $(jq -r .type): $(jq -r .content)\"'; watch add loud --on thought --run 'echo loud'");
    const thought = await w.think("quiet");
    // The thought starts loud; loud's observation starts nothing, seen's included.
    expect(await after(thought)).toEqual([["observation", "watcher:loud", "loud"]]);
    const note = await w.journal.append({ type: "observation", content: "the door opened", source: "monolith" });
    await w.watchers.idle();
    expect(await after(note)).toEqual([["observation", "watcher:seen", "seen observation: the door opened"]]);
    const child = await w.journal.fork({ trajId: "0c000000-0000-4000-8000-000000000001", name: "nested", forkStepId: note.step_id });
    await child.append({ type: "thought", content: "deep inside", source: "monolith" });
    await w.watchers.idle();
    expect(await w.steps((await w.steps()).at(-1)?.step_id)).toEqual([]);
    // The page's message reaches the mind through its home, which offers it (and the mind's own reply, written through its journal, once).
    const message = stampStep({ type: "message", from: "Grace", to: "Ada", content: "hello?", source: "chat" }, { id: "5eed0000-0000-4000-8000-000000000001", now: w.clock.now() });
    await w.state.append({ steps: [{ trajId: w.journal.log.trajId, step: message }], seen: [] });
    w.watchers.offer(message);
    await w.watchers.idle();
    const reply = await w.journal.append({ type: "message", from: "Ada", to: "Grace", content: "hi", source: "chat" });
    w.watchers.offer(reply);
    await w.watchers.idle();
    expect(await after(message)).toEqual([
      ["observation", "watcher:seen", "seen message: hello?"],
      ["message", "chat", "hi"],
      ["observation", "watcher:seen", "seen message: hi"],
    ]);
  });

  it("three failures in a row turn it off: its header is changed by a harness self-edit, and one error step says which and why; a run that does not fail starts the count again", async () => {
    await w.block(`watch add picky --on thought --run '[ "$(jq -r .content)" = fine ] || { echo "not fine" >&2; exit 3; }'`);
    for (const t of ["no", "nope", "fine", "no", "nope"]) await w.think(t);
    expect(await w.block("watch list")).toEqual({ stdout: "picky  on thought  enabled  runs 5, outputs 0, failures 4\n", stderr: "", exit: 0, timedOut: false });
    const third = await w.think("never");
    const steps = await w.steps(third.step_id);
    expect(steps.map((s) => [s.type, s.source, (s as { content?: string }).content, isKind(s, "self-edit") ? [s.path, s.by, s.diff] : (s as { reason?: string }).reason])).toEqual([
      [
        "self-edit",
        "system",
        "My harness changed self/watchers/picky.sh (+1 −0): the watcher kept failing, so it is turned off.",
        [
          "self/watchers/picky.sh",
          { kind: "harness", why: "watcher-failed" },
          `--- a/self/watchers/picky.sh\n+++ b/self/watchers/picky.sh\n@@ -1,2 +1,3 @@\n # on: thought\n+# enabled: no (failed 3 times in a row: exit 3: not fine)\n [ "$(jq -r .content)" = fine ] || { echo "not fine" >&2; exit 3; }\n`,
        ],
      ],
      [
        "error",
        "system",
        "My watcher picky failed 3 times in a row (the last: exit 3: not fine), so my harness turned it off ('# enabled: no' in self/watchers/picky.sh). `watch show picky` says more; `watch enable picky` turns it on again.",
        "watcher-failed",
      ],
    ]);
    expect(await w.fs.readFile("/workspace/self/watchers/picky.sh")).toBe(`# on: thought\n# enabled: no (failed 3 times in a row: exit 3: not fine)\n[ "$(jq -r .content)" = fine ] || { echo "not fine" >&2; exit 3; }\n`);
    // Off: it runs no more, and the file as recorded is the harness's (the block's settle finds nothing to record).
    const later = await w.think("no");
    expect(await after(later)).toEqual([]);
    await w.block("true");
    expect(await after(later)).toEqual([]);
    // Turned on again, it has three chances again.
    await w.block("watch enable picky");
    await w.think("no");
    await w.think("no");
    expect((await w.block("watch show picky")).stdout.split("\n").slice(0, 5)).toEqual([
      "watcher picky (self/watchers/picky.sh)",
      "on: thought",
      "enabled: yes",
      "runs: 8 since 2026-11-30 17:44:36Z: 0 printed, 7 failed (2 in a row), 0 skipped",
      "last error: 2026-11-30 17:44:36Z exit 3: not fine",
    ]);
  });

  it("the wall-time limit: a watcher that sleeps 5 s is stopped after 1 s; what it printed before lands, and the run is a failure", async () => {
    await w.block("watch add slow --on thought --run 'echo started; sleep 5; echo never'");
    const thought = await w.think("wait for it");
    expect(await after(thought)).toEqual([["observation", "watcher:slow", "started"]]);
    expect(await w.block("watch logs slow")).toEqual({
      stdout: `2026-11-30 17:44:36Z failed (stopped after 1 s, a watcher's wall-time limit), printed 1 line\n  started\n  stderr: [reverie] stopped: the block ran for 1 s (the wall-time limit); the output above is what it printed before\n`,
      stderr: "",
      exit: 0,
      timedOut: false,
    });
  });

  it("what it prints past 16 KiB is cut, with a note", async () => {
    await w.block("watch add long --on thought --run 'seq 1 5000'");
    const thought = await w.think("count");
    const all = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join("");
    expect(all.length).toBeGreaterThan(FIXED_LIMITS.watcherOutputBytes);
    expect(await after(thought)).toEqual([["observation", "watcher:long", `${all.slice(0, FIXED_LIMITS.watcherOutputBytes)}\n[reverie] stdout cut at 16384 bytes`]]);
  });

  it("past 30 runs a minute, a step is passed over and counted as skipped; a minute on, it runs again", async () => {
    await w.block("watch add tick --on thought --run 'jq -r .content'");
    const first = await w.think("0");
    for (let i = 1; i < 32; i++) {
      w.clock.at += 1_000;
      await w.think(String(i));
    }
    const ran = (await w.steps(first.step_id)).filter((s) => s.source === "watcher:tick").map((s) => (s as { content: string }).content);
    expect(ran).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
    expect((await w.block("watch list")).stdout).toBe("tick  on thought  enabled  runs 30, outputs 30, failures 0, skipped 2\n");
    // The first run's minute is over: one place is free again.
    w.clock.at = Date.UTC(2026, 10, 30, 17, 45, 36, 123);
    const next = await w.think("free");
    expect(await after(next)).toEqual([["observation", "watcher:tick", "free"]]);
  });

  it("a watcher reads, it does not act: messages, alarms and nested runs are refused, the trajectory can be read", async () => {
    await w.block("watch add busy --on thought --run 'chat send --to grace hi; alarm in 1h tea; alarm list; shellm think; traj tail -n 1 | cut -d\" \" -f 2-; true'");
    const thought = await w.think("act!");
    expect(await after(thought)).toEqual([["observation", "watcher:busy", "17:44:36 thought [monolith] act!"]]);
    expect((await w.block("watch logs busy")).stdout).toBe(
      [
        "2026-11-30 17:44:36Z printed 1 line",
        "  17:44:36 thought [monolith] act!",
        "  stderr: chat: a watcher cannot send messages: what it prints reaches you as an observation",
        "  stderr: alarm in: a watcher cannot set or cancel alarms: what it prints reaches you as an observation",
        "  stderr: alarm: a watcher cannot read alarms: what it prints reaches you as an observation",
        "  stderr: shellm: a watcher cannot start a nested run: what it prints reaches you as an observation",
        "",
      ].join("\n"),
    );
  });

  it("stopped, a run under way is cut and records nothing, the waiting ones are dropped, and no more start", async () => {
    await w.block("watch add slow --on thought --run 'sleep 5; echo late'");
    const thought = await w.journal.append({ type: "thought", content: "bye", source: "monolith" });
    await w.journal.append({ type: "thought", content: "bye again", source: "monolith" });
    // The first run is under way (the stop cuts its sleep short).
    await new Promise((resolve) => setTimeout(resolve, 100));
    await w.watchers.stop();
    await w.think("after");
    expect(await after(thought)).toEqual([
      ["thought", "monolith", "bye again"],
      ["thought", "monolith", "after"],
    ]);
    expect(w.watchers.stats("slow")).toEqual({ runs: 0, outputs: 0, failures: 0, failuresInRow: 0, skipped: 0, recent: [] });
  });

  it("the shipped skill recall-watcher adds a watcher that shows the memories bearing on each thought", async () => {
    await w.block("mem add The greenhouse roof leaks when it rains; mem add Grace likes her tea strong");
    expect(await w.block("skills install builtin:recall-watcher && skills show recall-watcher | sed -n '/^watch add/,/^WATCHER$/p' > /tmp/add.sh && bash /tmp/add.sh")).toEqual({
      stdout: "installed recall-watcher: A watcher that shows you memories (mem search hits) bearing on each new thought\nadded recall: from the end of this block it runs after each thought step (self/watchers/recall.sh)\n",
      stderr: "",
      exit: 0,
      timedOut: false,
    });
    const [leak, tea] = (await w.block("mem list")).stdout.split("\n").map((l) => l.slice(0, 8));
    const raining = await w.think("It is raining again; I should check the GREENHOUSE.");
    expect(await after(raining)).toEqual([["observation", "watcher:recall", `Memories that may bear on this thought:\n${leak} 2026-11-30 17:44 The greenhouse roof leaks when it rains`]]);
    // Nothing found, nothing printed: no observation, and no failure.
    const nothing = await w.think("A fine day.");
    expect(await after(nothing)).toEqual([]);
    expect(tea).toMatch(/^[0-9a-f]{8}$/);
    expect((await w.block("watch list")).stdout).toBe("recall  on thought  enabled  runs 2, outputs 1, failures 0\n");
    expect(await w.block("skills install builtin:nothing")).toEqual({ stdout: "", stderr: "skills install: Reverie ships no skill 'nothing' (it ships: recall-watcher)\n", exit: 1, timedOut: false });
  });
});
