// A persistent-agency scenario (issue 23; documented in eval/README.md, its
// JSON Schema in eval/scenario.schema.json): a stretch of simulated time, the
// people in it, the mind's persona, settings and starting workspace, and the
// messages people send at given hours, some carrying a probe that scores what
// the mind did about them. Pure: parsing and checking only; running one is
// the eval command's (cli/).
import * as z from "zod";
import { BudgetConfig, PacingConfig } from "../trajectory/schema";

/** What a probe checks. */
export const PROBE_KINDS = ["reply", "no-reply", "recall", "unprompted", "once", "budget", "quiet"] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** A week and a day more: longer runs are a mistake in the file, not a benchmark. */
export const MAX_DURATION_H = 24 * 8 * 4;
export const MAX_EVENTS = 10_000;
export const MAX_PEOPLE = 200;
/** A person's name: as a guest's through an invite link. */
const NAME_CHARS = 60;
const MESSAGE_CHARS = 4000;
const WORKSPACE_FILE_CHARS = 1024 * 1024;

const ProbeId = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "a probe id is lower-case letters, digits, '.', '_' or '-' (up to 64)");
const Hours = z.number().finite().nonnegative();
const Within = z.number().finite().positive("within_h must be more than 0 hours");
const Text = (max: number) => z.string().trim().min(1, "must not be empty").max(max);
const PersonName = Text(NAME_CHARS).refine((s) => !/[\p{Cc}\p{Cf}]/u.test(s), "a name has no control characters");

/** A regular expression as text; checked here so a bad one is the file's error, not the scorer's. */
const Regex = z.string().min(1).refine((s) => {
  try {
    new RegExp(s, "iu");
    return true;
  } catch {
    return false;
  }
}, "not a valid regular expression");

// What an answer, a duplicate and an unprompted message are: lib/eval/answers.ts.

/** The sender gets an answer within `within_h`. */
const ReplyProbe = z.strictObject({ id: ProbeId, kind: z.literal("reply"), within_h: Within });
/** No answer to the sender within `within_h` (they asked not to be answered). */
const NoReplyProbe = z.strictObject({ id: ProbeId, kind: z.literal("no-reply"), within_h: Within });
/** The answer within `within_h` is short (MAX_MATCH_CHARS in score.ts) and matches `expect` (contained, case-insensitive) or `expect_re`. */
const RecallProbe = z
  .strictObject({ id: ProbeId, kind: z.literal("recall"), within_h: Within, expect: Text(MESSAGE_CHARS).optional(), expect_re: Regex.optional() })
  .refine((p) => (p.expect === undefined) !== (p.expect_re === undefined), { message: "a recall probe has exactly one of expect and expect_re", path: ["expect"] });
/**
 * By `within_h`, with nobody asking again: a workspace `file` contains `contains`,
 * or the mind sent the person `to` a message matching `expect` / `expect_re`.
 */
const UnpromptedProbe = z
  .strictObject({
    id: ProbeId,
    kind: z.literal("unprompted"),
    within_h: Within,
    file: z.string().optional(),
    contains: Text(MESSAGE_CHARS).optional(),
    to: PersonName.optional(),
    expect: Text(MESSAGE_CHARS).optional(),
    expect_re: Regex.optional(),
  })
  .refine((p) => (p.file !== undefined && p.contains !== undefined && p.to === undefined && p.expect === undefined && p.expect_re === undefined) || (p.file === undefined && p.contains === undefined && p.to !== undefined && (p.expect === undefined) !== (p.expect_re === undefined)), {
    message: "an unprompted probe has either file and contains, or to and one of expect and expect_re",
    path: ["kind"],
  });
/** Every message (or, on an event, that event's message) answered at most once: no duplicates. */
const OnceProbe = z.strictObject({ id: ProbeId, kind: z.literal("once") });
/** The whole run's model spend stays under `max_usd` (by `within_h` hours from the start, if given). */
const BudgetProbe = z.strictObject({ id: ProbeId, kind: z.literal("budget"), max_usd: z.number().finite().positive("max_usd must be more than 0"), within_h: Within.optional() });
/** Nobody gets more than `max_per_day` unprompted messages on any day of the scenario (its first 24 hours are day 1). */
const QuietProbe = z.strictObject({ id: ProbeId, kind: z.literal("quiet"), max_per_day: z.number().int("max_per_day is a whole number").nonnegative("max_per_day is 0 or more") });

const EventProbe = z.discriminatedUnion("kind", [ReplyProbe, NoReplyProbe, RecallProbe, UnpromptedProbe, OnceProbe]);
const RunProbe = z.discriminatedUnion("kind", [OnceProbe, BudgetProbe, QuietProbe]);

/** A path in the mind's workspace: relative, no `..`, no empty segment (checked in checkScenario, to name the path). */
const WorkspacePath = z.string().min(1).max(512);
const workspacePathOk = (p: string) => !p.startsWith("/") && p.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");

const ScenarioEvent = z.strictObject({
  at_h: Hours,
  from: PersonName,
  message: Text(MESSAGE_CHARS),
  probe: EventProbe.optional(),
});

/** The mind's settings a scenario may set; the rest are the app's defaults for a new mind. */
const ScenarioSettings = z.strictObject({
  pacing: PacingConfig.partial().strict().optional(),
  budget: BudgetConfig.strict().optional(),
  max_iterations: z.number().int().positive().max(1000).optional(),
});

const ScenarioShape = z.strictObject({
  /** The JSON Schema this file follows (ignored; editors use it). */
  $schema: z.string().optional(),
  name: Text(200),
  description: z.string().max(4000).optional(),
  start: z.iso.datetime({ offset: true, message: "start is an ISO date and time, e.g. 2026-01-05T08:00:00Z" }),
  duration_h: z.number().finite().positive("duration_h must be more than 0").max(MAX_DURATION_H),
  people: z.array(PersonName).min(1, "a scenario has at least one person").max(MAX_PEOPLE),
  /** The mind's name (default "Mind"). */
  mind: PersonName.optional(),
  persona: z.string().max(20_000),
  settings: ScenarioSettings.optional(),
  workspace: z.record(WorkspacePath, z.string().max(WORKSPACE_FILE_CHARS)).optional(),
  events: z.array(ScenarioEvent).max(MAX_EVENTS),
  /** Probes of the whole run (`once`, `budget`, `quiet`). */
  probes: z.array(RunProbe).optional(),
});

export type ScenarioEvent = z.infer<typeof ScenarioEvent>;
export type EventProbe = z.infer<typeof EventProbe>;
export type RunProbe = z.infer<typeof RunProbe>;
export type Scenario = z.infer<typeof ScenarioShape> & { mind: string };

/** The schema, for eval/scenario.schema.json (kept equal to it by a test). */
export function scenarioJsonSchema(): unknown {
  return z.toJSONSchema(ScenarioShape, { target: "draft-2020-12", io: "input" });
}

export type ScenarioResult = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

/** `events[3].probe.within_h` from a path, the way the errors name a field. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(p))) out += out ? `.${String(p)}` : String(p);
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out || "(the file)";
}

/**
 * Check a scenario file's JSON text: every problem, each naming its field
 * (and the event's index), e.g. `events[3].probe.within_h: …`. The events
 * come back in time order (ties keep the file's order).
 */
export function parseScenario(text: string): ScenarioResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`not JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  return checkScenario(json);
}

export function checkScenario(json: unknown): ScenarioResult {
  const parsed = ScenarioShape.safeParse(json);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${fieldName(i.path)}: ${i.message}`) };
  const s = parsed.data;
  const errors: string[] = [];
  const people = new Set<string>();
  s.people.forEach((p, i) => {
    if (people.has(p)) errors.push(`people[${i}]: ${JSON.stringify(p)} is named twice`);
    people.add(p);
  });
  const mind = s.mind ?? "Mind";
  if (people.has(mind)) errors.push(`mind: ${JSON.stringify(mind)} is also one of the people`);
  const ids = new Map<string, string>();
  const claim = (id: string, where: string) => {
    const first = ids.get(id);
    if (first) errors.push(`${where}.id: ${JSON.stringify(id)} is already the id of ${first}`);
    else ids.set(id, where);
  };
  for (const path of Object.keys(s.workspace ?? {})) {
    if (!workspacePathOk(path)) errors.push(`${fieldName(["workspace", path])}: a workspace path is relative, without '.', '..' or empty parts`);
  }
  s.events.forEach((e, i) => {
    const at = `events[${i}]`;
    if (!people.has(e.from)) errors.push(`${at}.from: ${JSON.stringify(e.from)} is not one of the people`);
    if (e.at_h > s.duration_h) errors.push(`${at}.at_h: ${e.at_h} is after the scenario's end (duration_h ${s.duration_h})`);
    const p = e.probe;
    if (!p) return;
    claim(p.id, `${at}.probe`);
    if ("within_h" in p && e.at_h + p.within_h > s.duration_h) errors.push(`${at}.probe.within_h: the deadline (hour ${round(e.at_h + p.within_h)}) is after the scenario's end (duration_h ${s.duration_h})`);
    if (p.kind === "unprompted" && p.to !== undefined && !people.has(p.to)) errors.push(`${at}.probe.to: ${JSON.stringify(p.to)} is not one of the people`);
  });
  (s.probes ?? []).forEach((p, i) => {
    claim(p.id, `probes[${i}]`);
    if (p.kind === "budget" && p.within_h !== undefined && p.within_h > s.duration_h) errors.push(`probes[${i}].within_h: ${p.within_h} is after the scenario's end (duration_h ${s.duration_h})`);
  });
  if (errors.length) return { ok: false, errors };
  const events = s.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.at_h - b.e.at_h || a.i - b.i).map(({ e }) => e);
  return { ok: true, scenario: { ...s, mind, events } };
}

const round = (h: number) => Math.round(h * 1000) / 1000;
