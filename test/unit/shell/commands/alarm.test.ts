// `alarm` through the real just-bash sandbox, wired as a host wires a mind: a
// Journal over the mind's TrajectoryLog over its MemoryMindState, one run
// opened, and a session scoped to that run as lib/mind/run/run.ts scopes it
// (helpers/wired-sandbox.ts). Alarms are steps of that run.
import { InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import { Journal, type RunScope } from "@/lib/mind/log/journal";
import { MemoryMindState } from "@/lib/mind/state/memory-state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import type { Clock, ShellSession } from "@/lib/mind/ports";
import { alarm } from "@/lib/shell/commands/alarm";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { WORKSPACE } from "@/lib/shell/limits";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import type { StepOf } from "@/lib/trajectory/schema";
import { ROOT_TRAJ } from "../../helpers/memory-log";
import { echoShellm, outcome, predictableIds, runScope } from "../../helpers/wired-sandbox";

const T0 = Date.UTC(2026, 10, 30, 17, 44, 36, 123);
/** The n-th id handed out: the run's header is the first. */
const jid = (n: number) => `0a${String(n).padStart(6, "0")}-0000-4000-8000-000000000000`;
const ids = predictableIds();

let now: number;
let state: MemoryMindState;
let log: TrajectoryLog;
let run: RunScope;
let session: ShellSession;

beforeEach(async () => {
  now = T0;
  ids.reset();
  const clock: Clock = { now: () => now, sleep: async () => undefined };
  state = new MemoryMindState(ROOT_TRAJ);
  log = new TrajectoryLog(new MindWriter(state), ROOT_TRAJ);
  const journal = new Journal(log, ids, clock);
  run = await journal.openRun({ model: "test", launched_by: "monolith" });
  const fs = new InMemoryFs();
  const shell = justBashSandbox({ fs, flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids, clock });
  session = shell.open(runScope(run, "Reverie", echoShellm()));
});

const sh = async (code: string) => outcome(await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal }));
const out = (stdout: string) => ({ stdout, stderr: "", exit: 0, timedOut: false });
const err = (stderr: string, exit = 1) => ({ stdout: "", stderr, exit, timedOut: false });
const usage = (problem: string) => err(`alarm: ${problem}\n${alarm.usage}\n`, 2);
const alarmSteps = async () => {
  await log.writer.flushed();
  return state.steps().filter((s): s is StepOf<"alarm"> => s.type === "alarm");
};

describe("alarm", () => {
  it("sets alarms at a time and after a while, and lists them soonest first", async () => {
    expect(await sh("alarm in 1h30m call Ada about the draft")).toEqual(out(`alarm ${jid(2).slice(0, 8)} set for 2026-11-30 19:14:36Z (in 1h30m)\n`));
    expect(await sh("alarm at 09:00 stand-up")).toEqual(out(`alarm ${jid(3).slice(0, 8)} set for 2026-12-01 09:00:00Z (in 15h15m24s)\n`));
    expect(await sh("alarm at 2026-11-30T18:00+01:00 'an hour ago in Paris'")).toEqual(err("alarm at: 2026-11-30 17:00:00Z is in the past (it is now 2026-11-30 17:44:36Z)\n"));
    expect(await sh("alarm at 2026-11-30T19:00Z tea")).toEqual(out(`alarm ${jid(4).slice(0, 8)} set for 2026-11-30 19:00:00Z (in 1h15m24s)\n`));
    expect(await sh("printf 'water the plants\\nthe ferns too\\n' | alarm in 2d")).toEqual(out(`alarm ${jid(5).slice(0, 8)} set for 2026-12-02 17:44:36Z (in 2d)\n`));
    expect(await sh("alarm list")).toEqual(
      out(
        [
          `${jid(4).slice(0, 8)} 2026-11-30 19:00:00Z tea`,
          `${jid(2).slice(0, 8)} 2026-11-30 19:14:36Z call Ada about the draft`,
          `${jid(3).slice(0, 8)} 2026-12-01 09:00:00Z stand-up`,
          `${jid(5).slice(0, 8)} 2026-12-02 17:44:36Z water the plants the ferns too`,
          "",
        ].join("\n"),
      ),
    );
    expect(await sh("alarm list | wc -l")).toEqual(out("4\n"));
    // Each is a set step of the run, its note as given.
    expect((await alarmSteps()).map((s) => [s.op, s.alarm, s.at, s.note, s.run_id])).toEqual([
      ["set", jid(2), "2026-11-30T19:14:36.123Z", "call Ada about the draft", jid(1)],
      ["set", jid(3), "2026-12-01T09:00:00.000Z", "stand-up", jid(1)],
      ["set", jid(4), "2026-11-30T19:00:00.000Z", "tea", jid(1)],
      ["set", jid(5), "2026-12-02T17:44:36.123Z", "water the plants\nthe ferns too", jid(1)],
    ]);
  });

  it("cancels by a unique prefix of 4 or more characters", async () => {
    await sh("alarm in 10m one; alarm in 20m two");
    expect(await sh("alarm cancel 0a00")).toEqual(err("alarm cancel: '0a00' matches 2 alarms; give more of the id\n"));
    expect(await sh("alarm cancel 0a0")).toEqual(err("alarm cancel: '0a0' is too short: give at least 4 characters of the id\n"));
    expect(await sh(`alarm cancel ${jid(3).slice(0, 8).toUpperCase()}`)).toEqual(out(`cancelled ${jid(3).slice(0, 8)} 2026-11-30 18:04:36Z two\n`));
    expect(await sh(`alarm cancel ${jid(3).slice(0, 8)}`)).toEqual(err(`alarm cancel: no pending alarm '${jid(3).slice(0, 8)}' (alarm list shows them)\n`));
    expect(await sh("alarm list")).toEqual(out(`${jid(2).slice(0, 8)} 2026-11-30 17:54:36Z one\n`));
    expect((await alarmSteps()).at(-1)).toMatchObject({ op: "cancel", alarm: jid(3), run_id: jid(1) });
    await sh("alarm cancel 0a000002");
    expect(await sh("alarm list")).toEqual(out("no alarms pending\n"));
  });

  it("explains what it cannot do, and writes nothing for it", async () => {
    expect(await sh("alarm in 0m never")).toEqual(err("alarm in: '0m' is no time at all: an alarm needs a duration above 0\n"));
    expect(await sh("alarm in -5m before")).toEqual(err("alarm in: '-5m' is not a duration: give whole numbers with units d, h, m, s in that order, such as 90s, 10m, 2h, 1h30m or 1d\n"));
    expect(await sh("alarm in 400d far")).toEqual(err("alarm in: '400d' is more than 365 days ahead\n"));
    expect(await sh("alarm at noon lunch")).toEqual(err("alarm at: 'noon' is not a time: give HH:MM (UTC) or an ISO 8601 time such as 2026-12-01T09:30Z\n"));
    expect(await sh(`alarm in 5m ${"x".repeat(501)}`)).toEqual(err("alarm in: the note has 501 characters; at most 500\n"));
    expect(await sh("alarm in 5m")).toEqual(usage("in needs a duration and a note"));
    expect(await sh("alarm at")).toEqual(usage("at needs a time and a note"));
    expect(await sh("alarm")).toEqual(usage("missing subcommand"));
    expect(await sh("alarm snooze 5m")).toEqual(usage("unknown subcommand 'snooze'"));
    expect(await sh("alarm list all")).toEqual(usage("list takes no arguments, not 'all'"));
    expect(await sh("alarm cancel")).toEqual(usage("cancel takes one alarm id"));
    expect(await alarmSteps()).toEqual([]);
  });

  it("--help prints the usage; after -- it is part of the note", async () => {
    expect(await sh("alarm --help")).toEqual(out(`${alarm.usage}\n`));
    expect(await sh("alarm in 5m --help")).toEqual(out(`${alarm.usage}\n`));
    expect(await sh("alarm in 5m -- --help is a flag")).toEqual(out(`alarm ${jid(2).slice(0, 8)} set for 2026-11-30 17:49:36Z (in 5m)\n`));
    expect((await alarmSteps()).map((s) => s.note)).toEqual(["--help is a flag"]);
  });
});
