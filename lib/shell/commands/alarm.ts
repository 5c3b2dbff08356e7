// alarm: the mind wakes itself later. Each alarm is a step in its trajectory
// (set through the run, ended by cancel or when it rings), so it holds in
// whichever home runs the mind, across handovers and restarts. Times are UTC.
import { formatIn, parseAt, parseIn } from "../../mind/alarms/time";
import { MAX_NOTE_CHARS, MAX_PENDING, MIN_PREFIX, SHORT_ID } from "../../mind/alarms/alarms";
import { alarmTime } from "../../trajectory/summary";
import type { Alarm, AlarmPort, ClockPort } from "../ports";
import { defineAgentCommand, fail, ok, usageError, type CommandIO, type CommandResult } from "./command";

const USAGE = `usage: alarm at <time> <note…>       wake yourself at a time: HH:MM (UTC, the next to come) or ISO 8601 such as 2026-12-01T09:30 (UTC unless it names an offset)
       alarm in <duration> <note…>   wake yourself after a while: 90s, 10m, 2h, 1h30m, 1d
       alarm list                    pending alarms, soonest first: <id> <YYYY-MM-DD HH:MM:SS>Z <note>
       alarm cancel <id>             cancel one; the id may be a unique prefix of ${MIN_PREFIX} or more characters
The note (at most ${MAX_NOTE_CHARS} characters) may also come on stdin. An alarm wakes you with its note, once,
wherever you run and after a restart; at most ${MAX_PENDING} pending, up to 365 days ahead.`;

type Ports = { alarms: AlarmPort; clock: ClockPort };

/** `<id> <YYYY-MM-DD HH:MM:SS>Z <note on one line>` */
const line = (a: Alarm) => `${a.id.slice(0, SHORT_ID)} ${alarmTime(a.at)} ${a.note.replace(/\s+/g, " ").trim()}\n`;

export const alarm = defineAgentCommand<Ports>({
  name: "alarm",
  summary: "alarm at <HH:MM|ISO time> <note> | in <duration> <note> | list | cancel <id>   wake yourself later, with a note",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    if (helpAsked(args)) return ok(`${USAGE}\n`);
    const [sub, ...rest] = args;
    switch (sub) {
      case "at":
      case "in":
        return set(sub, rest, io, ports);
      case "list": {
        if (rest.length) return usageError(alarm, `list takes no arguments, not '${rest.join(" ")}'`);
        const pending = await ports.alarms.list();
        return ok(pending.length ? pending.map(line).join("") : "no alarms pending\n");
      }
      case "cancel": {
        if (rest.length !== 1) return usageError(alarm, "cancel takes one alarm id");
        const r = await ports.alarms.cancel(rest[0] as string);
        if (!r.ok) return fail(`alarm cancel: ${r.error}`);
        return ok(`cancelled ${line(r.alarm)}`);
      }
      case undefined:
        return usageError(alarm, "missing subcommand");
      default:
        return usageError(alarm, `unknown subcommand '${sub}'`);
    }
  },
});

async function set(sub: "at" | "in", args: string[], io: CommandIO, ports: Ports): Promise<CommandResult> {
  const [spec, ...words] = args;
  const note = (words[0] === "--" ? words.slice(1) : words).join(" ") || io.stdin.replace(/\s+$/, "");
  if (spec === undefined || !note.trim()) return usageError(alarm, `${sub} needs ${sub === "at" ? "a time" : "a duration"} and a note`);
  const now = ports.clock.now();
  const when = sub === "at" ? parseAt(spec, now) : parseIn(spec, now);
  if (!when.ok) return fail(`alarm ${sub}: ${when.error}`);
  const r = await ports.alarms.set(when.at, note);
  if (!r.ok) return fail(`alarm ${sub}: ${r.error}`);
  return ok(`alarm ${r.alarm.id.slice(0, SHORT_ID)} set for ${alarmTime(r.alarm.at)} (in ${formatIn(r.alarm.at - now)})\n`);
}

/** `--help` anywhere before a `--` (after it, words are the note's). */
function helpAsked(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--help");
}
