// The mind's own alarms. Each is a step (lib/trajectory/schema.ts `alarm`):
// `set` makes one, `cancel` or `rang` ends it. The book folds those steps
// into the pending alarms; the port is how the `alarm` command sets, cancels
// and lists them, appending through the run it runs in; `nextAlarmDue` tells
// a host (the server's runner) when to wake a mind that is not running.
import { formatTs, isKind, type Step } from "../../trajectory/schema";
import { checkAhead } from "./time";
import type { RunScope } from "../log/journal";
import { readAllOfKind } from "../log/mind-log";
import type { Alarm, AlarmPort, AlarmResult } from "../ports";
import type { MindState } from "../state/state";

export type { Alarm };

/** At most this many alarms pending at once. */
export const MAX_PENDING = 100;
/** A note's length, in characters. */
export const MAX_NOTE_CHARS = 500;
/** The shortest id prefix `alarm cancel` takes. */
export const MIN_PREFIX = 4;
/** What the agent sees of an alarm's id. */
export const SHORT_ID = 8;

const refused = (error: string): AlarmResult => ({ ok: false, error });

/** The pending alarms, folded from alarm steps in the order they were written. Pure. */
export class AlarmBook {
  private readonly pending = new Map<string, Alarm>();
  /** Alarms cancelled or rung: a set step seen again later (read twice) never brings one back. */
  private readonly ended = new Set<string>();

  static of(steps: Iterable<Step>): AlarmBook {
    const book = new AlarmBook();
    for (const s of steps) book.apply(s);
    return book;
  }

  /** Fold one step in (any kind: others are passed over); true when the pending alarms changed. */
  apply(step: Step): boolean {
    if (!isKind(step, "alarm")) return false;
    if (step.op !== "set") {
      this.ended.add(step.alarm);
      return this.pending.delete(step.alarm);
    }
    if (step.at === undefined || this.ended.has(step.alarm) || this.pending.has(step.alarm)) return false;
    this.pending.set(step.alarm, { id: step.alarm, at: Date.parse(step.at), note: step.note ?? "" });
    return true;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Pending alarms, soonest first (ties by id, so the order never depends on how they were read). */
  list(): Alarm[] {
    return [...this.pending.values()].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
  }

  /** The soonest pending alarm. */
  next(): Alarm | undefined {
    let soonest: Alarm | undefined;
    for (const a of this.pending.values()) if (!soonest || a.at < soonest.at || (a.at === soonest.at && a.id < soonest.id)) soonest = a;
    return soonest;
  }

  /** Alarms due at `now` (their time has come), soonest first. */
  due(now: number): Alarm[] {
    return this.list().filter((a) => a.at <= now);
  }

  /** The pending alarm whose id starts with `prefix`, or why there is none. */
  resolve(prefix: string): Alarm | string {
    const p = prefix.toLowerCase();
    if (!/^[0-9a-f-]+$/.test(p)) return `'${prefix}' is not an alarm id (alarm list shows them)`;
    if (p.length < MIN_PREFIX) return `'${prefix}' is too short: give at least ${MIN_PREFIX} characters of the id`;
    const hits = this.list().filter((a) => a.id.startsWith(p));
    if (hits.length > 1) return `'${prefix}' matches ${hits.length} alarms; give more of the id`;
    return hits[0] ?? `no pending alarm '${prefix}' (alarm list shows them)`;
  }
}

/** The alarms of a run's mind: set and cancel append to the run, the book is read from the whole log each time. */
export function alarmPort(run: RunScope): AlarmPort {
  const { journal } = run;
  const book = async () => AlarmBook.of(await journal.log.ofKind(["alarm"]));
  return {
    async set(at, note) {
      if (!note.trim()) return refused("an alarm needs a note (what it is for)");
      const chars = [...note].length;
      if (chars > MAX_NOTE_CHARS) return refused(`the note has ${chars} characters; at most ${MAX_NOTE_CHARS}`);
      const ahead = checkAhead(at, journal.now());
      if (!ahead.ok) return ahead;
      if ((await book()).size >= MAX_PENDING) return refused(`${MAX_PENDING} alarms are pending, the most there may be: cancel one first (alarm list)`);
      // The alarm's id is its set step's own.
      const id = journal.newId();
      await run.append({ type: "alarm", op: "set", alarm: id, at: formatTs(at), note, step_id: id });
      return { ok: true, alarm: { id, at, note } };
    },
    async cancel(idPrefix) {
      const found = (await book()).resolve(idPrefix);
      if (typeof found === "string") return refused(found);
      await run.append({ type: "alarm", op: "cancel", alarm: found.id });
      return { ok: true, alarm: found };
    },
    list: async () => (await book()).list(),
  };
}

/** When a mind's next alarm is due (ms since the epoch), read from its state: undefined when none is pending. A host schedules its wake by it. */
export async function nextAlarmDue(state: MindState, trajId: string = state.mindId): Promise<number | undefined> {
  return AlarmBook.of(await readAllOfKind(state, trajId, ["alarm"])).next()?.at;
}
