// The whole-life checks of the runner fault test (test/e2e/runner-life.ts
// checkLife) bite: a clean life of two homes passes, and each fault it is
// there to catch — a gap, a step twice, a step lost, an epoch going back, two
// homes in one epoch, a wake whose home is not its lease holder's kind, a run
// writing on after the next home's first wake, a run left open, a server wake
// set aside, a step of a set-aside run in the mind's line, a wake without an
// epoch once the mind was leased, a step stored out of time order in its
// trajectory — is named; and the mind's longest silence is measured.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseStep } from "@/lib/trajectory/schema";
import { checkLife, longestSilence, type LinkRow, type LifeFacts } from "../../e2e/runner-life";

const ROOT = randomUUID();
const ASIDE = randomUUID();

/** A life written step by step: each step parsed as the link's would be, numbered in order. */
function life() {
  const rows: LinkRow[] = [];
  let t = Date.UTC(2026, 11, 1);
  const add = (step: Record<string, unknown>, traj = ROOT): LinkRow => {
    const parsed = parseStep({ step_id: randomUUID(), ts: new Date(t++).toISOString(), ...step });
    if (!parsed.ok) throw new Error(parsed.error);
    const row = { seq: rows.length + 1, traj, step: parsed.step };
    rows.push(row);
    return row;
  };
  const wake = (home: "tab" | "server", epoch: number, traj = ROOT) => add({ type: "wake", reason: "scheduled", level: 0, delay_s: 0, home, epoch, source: "monolith" }, traj);
  /** A run of the wake `w`: its header, a block and its output; `end` closes it (or not). */
  const run = (w: LinkRow, end?: Record<string, unknown>, traj = ROOT) => {
    const header = add({ type: "shellm-run", launched_by: "monolith", wake: w.step.step_id }, traj);
    const id = header.step.step_id;
    add({ type: "prompt", content: "p", run_id: id }, traj);
    add({ type: "reasoning", thought: "t", cmd: "echo hi", run_id: id }, traj);
    add({ type: "shell-output", stdout: "hi", stderr: "", exit: 0, run_id: id }, traj);
    if (end) add({ ...end, run_id: id }, traj);
    return id;
  };
  return { rows, add, wake, run, pause: (ms: number) => void (t += ms) };
}

const facts = (rows: LinkRow[], over: Partial<LifeFacts> = {}): LifeFacts => ({
  root: ROOT,
  aside: new Set([ASIDE]),
  holders: new Map([
    [1, "tab:one"],
    [2, "runner:host:1:a"],
  ]),
  seen: rows.map((r) => ({ ...r, seenAt: 0 })),
  ...over,
});

/** A tab's stretch (epoch 1), then the server's (epoch 2), each with a run that ended. */
function twoHomes() {
  const l = life();
  const tab = l.wake("tab", 1);
  const tabRun = l.run(tab, { type: "final", content: "done" });
  const server = l.wake("server", 2);
  l.run(server, { type: "final", content: "done" });
  return { ...l, tabRun, server };
}

describe("the runner fault test's whole-life checks", () => {
  it("pass a clean life of two homes, with a run the next home closed as interrupted and steps the tab set aside", () => {
    const l = life();
    // Before any lease (keep-alive not on yet), the tab's wakes carry no epoch.
    l.add({ type: "wake", reason: "scheduled", level: 0, delay_s: 0, home: "tab", source: "monolith" });
    const tab = l.wake("tab", 1);
    const cut = l.run(tab);
    // The next home recovers first (the cut run's ending), then wakes.
    l.add({ type: "error", reason: "interrupted", content: "cut", run_id: cut, source: "system" });
    const server = l.wake("server", 2);
    l.run(server, { type: "final", content: "done" });
    // What the tab wrote after it lost the lease, kept in its own trajectory.
    l.wake("tab", 1, ASIDE);
    const report = checkLife(l.rows, facts(l.rows));
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ asideSteps: 1, wakes: { tab: 2, server: 1, epochs: 2 }, runs: 2, interrupted: 1, stopped: 0 });
  });

  it("name a seq gap, a step twice and a step the link showed that is gone", () => {
    const l = twoHomes();
    const gone = { ...l.rows[2]!, seenAt: 0 };
    const rows = l.rows.filter((r) => r !== l.rows[2]).concat([{ ...l.rows[0]!, seq: l.rows.length + 1 }]);
    const problems = checkLife(rows, facts(rows, { seen: [gone] })).problems.join("\n");
    expect(problems).toMatch(/seq gap: position 3 holds seq 4/);
    expect(problems).toMatch(/is there twice/);
    expect(problems).toMatch(/\(prompt, seen at seq 3\) is lost/);
  });

  it("name a write from a stale epoch: the tab's run going on after the server's first wake", () => {
    const l = twoHomes();
    l.add({ type: "shell-output", stdout: "late", stderr: "", exit: 0, run_id: l.tabRun });
    expect(checkLife(l.rows, facts(l.rows)).problems.join("\n")).toMatch(/run .* of epoch 1 wrote shell-output at seq \d+, after epoch 2's first wake: a write from a stale epoch was accepted/);
  });

  it("name an older epoch's wake after a newer one, two homes in one epoch, and a home that is not its holder's", () => {
    const back = twoHomes();
    back.wake("tab", 1);
    expect(checkLife(back.rows, facts(back.rows)).problems.join("\n")).toMatch(/has epoch 1 after a wake of epoch 2 \(tab\): a stale home wrote/);
    const shared = twoHomes();
    shared.wake("tab", 2);
    expect(checkLife(shared.rows, facts(shared.rows)).problems.join("\n")).toMatch(/epoch 2 has wakes from two homes \(server, then tab/);
    const wrongHolder = twoHomes();
    const holders = new Map([
      [1, "tab:one"],
      [2, "tab:two"],
    ]);
    expect(checkLife(wrongHolder.rows, facts(wrongHolder.rows, { holders })).problems.join("\n")).toMatch(/says home server under epoch 2, whose lease holder was tab:two/);
  });

  it("name a run left open, a run with two endings, a server wake set aside, and half a set-aside run in the mind's line", () => {
    const l = twoHomes();
    const open = l.run(l.server);
    l.add({ type: "final", content: "again", run_id: l.tabRun });
    l.wake("server", 2, ASIDE);
    const asideRun = l.run(l.wake("tab", 1, ASIDE), undefined, ASIDE);
    l.add({ type: "final", content: "half of it", run_id: asideRun });
    const problems = checkLife(l.rows, facts(l.rows)).problems.join("\n");
    expect(problems).toContain(`run ${open.slice(0, 8)}`);
    expect(problems).toMatch(/has 0 endings/);
    expect(problems).toMatch(/has 2 endings: final, final/);
    expect(problems).toMatch(/a server wake at seq \d+ was set aside/);
    expect(problems).toMatch(/1 steps in the mind's line belong to no run in it \(first: seq \d+ final/);
  });

  it("name a wake without an epoch once the mind was leased, in the mind's line or set aside (a home ran it without the lease)", () => {
    const l = twoHomes();
    l.add({ type: "wake", reason: "scheduled", level: 0, delay_s: 0, home: "tab", source: "monolith" }, ASIDE);
    const problems = checkLife(l.rows, facts(l.rows)).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^wake at seq \d+ \(tab, in a set-aside trajectory\) stamped [\d:.]+ carries no epoch, after the first lease \(epoch 1's wake at [\d:.]+\): a home ran the mind without the lease$/);
  });

  it("name a step stored after one stamped later in its trajectory, and not across trajectories", () => {
    const l = twoHomes();
    // The tab's run, stamped before the server's wake, stored after the server's steps (what the issue saw).
    const early = new Date(Date.parse(l.server.step.ts) - 500).toISOString();
    l.add({ type: "thought", content: "written in the tab before the handover", ts: early });
    const problems = checkLife(l.rows, facts(l.rows)).problems;
    expect(problems).toEqual([expect.stringMatching(/^in the mind's line, seq \d+ \(thought stamped [\d:.]+\) is stored after seq \d+ \(final stamped [\d:.]+\): stored order is not time order$/)]);
    // The same step set aside is in time order in its own trajectory.
    const aside = twoHomes();
    aside.add({ type: "thought", content: "written in the tab before the handover", ts: new Date(Date.parse(aside.server.step.ts) - 500).toISOString() }, ASIDE);
    expect(checkLife(aside.rows, facts(aside.rows)).problems).toEqual([]);
  });

  it("measure the mind's longest silence from its first leased wake, whichever home", () => {
    const l = life();
    l.add({ type: "thought", content: "before any lease" });
    l.pause(60_000);
    const tab = l.wake("tab", 1);
    l.run(tab, { type: "final", content: "done" });
    l.pause(7_000);
    const server = l.wake("server", 2);
    l.run(server, { type: "final", content: "done" });
    const silence = longestSilence(l.rows);
    expect(silence.ms).toBe(7_001);
    expect(silence.after).toBe(server);
    expect(longestSilence([]).ms).toBe(0);
  });
});
