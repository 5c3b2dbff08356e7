// The step schema, declared once. Every step read from storage, the network or
// an imported file goes through `parseStep`; types are inferred from here.
//
// Steps follow Headlong's trajectory format (shared/design/TRAJECTORY.md).
// Unknown fields are kept (loose objects) so a Headlong log round-trips
// unchanged; unknown kinds are kept too, as `UnknownStep`.
import * as z from "zod";
import { COMPILE_AFTER, compiledOnUse, parsesAsWritten } from "./compiled";
import { Permissions } from "./permissions";

/** UUID v4 (what Reverie writes); Headlong logs may carry other UUID versions. */
export const StepId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "step_id must be a UUID");

/** UTC with milliseconds is what we write; any ISO 8601 instant is accepted. */
export const Timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "ts must be an ISO 8601 time");

const base = {
  step_id: StepId,
  ts: Timestamp,
  run_id: StepId.optional(),
  trigger_step: StepId.optional(),
  source: z.string().optional(),
};

const kind = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), ...base, ...shape });

const text = z.string();

export const TrajectoryStep = kind("trajectory", {
  name: z.string().optional(),
  parent_traj: StepId.optional(),
  parent_step: StepId.optional(),
  parent_traj_ref: z.string().optional(),
});
export const ShellmRunStep = kind("shellm-run", {
  model: z.string().optional(),
  launched_by: z.string().optional(),
  wake: z.string().optional(),
});
export const PromptStep = kind("prompt", { content: text });

/** One model call's tokens (and what they cost when a price was known), on the step the call produced. */
export const StepUsage = z.looseObject({
  input_tokens: z.number().nonnegative(),
  /** Of the input, how many the provider read from its cache. */
  cached_input_tokens: z.number().nonnegative().optional(),
  output_tokens: z.number().nonnegative(),
  /** Of the output, how many were reasoning. */
  reasoning_tokens: z.number().nonnegative().optional(),
  /** USD at the price known when the call was made. */
  usd: z.number().nonnegative().optional(),
  model: z.string().optional(),
});
export type StepUsage = z.infer<typeof StepUsage>;

export const ReasoningStep = kind("reasoning", {
  thought: text,
  cmd: text,
  in_tok: z.number().optional(),
  out_tok: z.number().optional(),
  usage: StepUsage.optional(),
});
export const ShellOutputStep = kind("shell-output", {
  stdout: text,
  stderr: text,
  exit: z.number(),
  /** Absent from some of Headlong's logs (its test fixtures); a renderer leaves a missing one out. */
  exec_s: z.number().optional(),
  timed_out: z.boolean().optional(),
  stdout_ref: z.string().optional(),
  stdout_bytes: z.number().optional(),
  stdout_truncated: z.boolean().optional(),
  stderr_ref: z.string().optional(),
  stderr_bytes: z.number().optional(),
  stderr_truncated: z.boolean().optional(),
});
export const FeedbackStep = kind("feedback", { content: text });
export const FinalStep = kind("final", { content: text });
export const ErrorStep = kind("error", { content: text, reason: z.string(), usage: StepUsage.optional() });
export const RunSummaryStep = kind("run-summary", { content: text.optional() });
export const ThoughtStep = kind("thought", { content: text, usage: StepUsage.optional() });
export const ActionStep = kind("action", { content: text });
export const ObservationStep = kind("observation", {
  content: text,
  decision: z.enum(["replied", "no-reply", "reply-failed"]).optional(),
  usage: StepUsage.optional(),
});
export const IdleStep = kind("idle", { content: text.optional() });
export const MessageStep = kind("message", {
  content: text,
  from: z.string(),
  to: z.string(),
  reply_to: StepId.optional(),
  /** Through an invite link: the sender's role there (guest, member, operator), so the mind knows whose word it is. */
  role: z.string().optional(),
});
export const ForkStep = kind("fork", { child: StepId, child_ref: z.string() });
export const MergeStep = kind("merge", {
  content: text,
  from_traj: StepId,
  from_step: StepId,
  from_traj_ref: z.string(),
});

/** Why the mind woke (`alarm`: an alarm it set went off). Headlong writes `monolith-wake`; Reverie writes `wake`. */
export const WakeReason = z.enum(["start", "scheduled", "message", "retry", "alarm"]);
/** Where a mind ran: in a browser tab, or on its server while no tab held it. */
export const MindHome = z.enum(["tab", "server"]);
export type MindHome = z.infer<typeof MindHome>;
export const WakeStep = kind("wake", {
  reason: WakeReason,
  level: z.number().int().min(0),
  delay_s: z.number().min(0),
  /** Where this wake ran, and under which lease epoch (when the mind is leased): across a life they never go back. */
  home: MindHome.optional(),
  epoch: z.number().int().positive().optional(),
});
export const MonolithWakeStep = kind("monolith-wake", {});

/**
 * The mind's own alarms (the `alarm` command), one kind folded into the
 * pending set (lib/mind/alarms/alarms.ts): `set` (at, note) makes an alarm whose id
 * is the set step's own step_id; `cancel` ends it before it rings; `rang`
 * records that it woke the mind, so it never rings twice. `alarm` is the set
 * step's id on all three.
 */
export const AlarmStep = kind("alarm", {
  op: z.enum(["set", "cancel", "rang"]),
  alarm: StepId,
  at: Timestamp.optional(),
  note: text.optional(),
}).refine((s) => s.op !== "set" || (s.at !== undefined && s.note !== undefined && s.alarm === s.step_id), {
  message: "an alarm's set step has its time (at) and note, and names itself (alarm = its step_id)",
});

/** sha256 of a text's UTF-8 bytes, lower-case hex. */
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 is 64 lower-case hex digits");
/** Who changed one of the mind's own texts (a self-edit's `by`). */
export const SelfEditBy = z.discriminatedUnion("kind", [
  /** The mind's shell: the block of run `run`, in trajectory `traj` (a nested run's own). */
  z.looseObject({ kind: z.literal("mind"), run: StepId, traj: StepId }),
  /** Its human, in Files or in Settings (by the name they write under). */
  z.looseObject({ kind: z.literal("human"), name: z.string(), via: z.enum(["files", "settings"]) }),
  /** A revert of the self-edit `of`, asked for by its human. */
  z.looseObject({ kind: z.literal("revert"), of: StepId, name: z.string() }),
  /** The harness: the texts written at the mind's first start, a change found on disk that had no step, or a watcher it turned off (it kept failing). */
  z.looseObject({ kind: z.literal("harness"), why: z.enum(["first-start", "unrecorded", "watcher-failed"]) }),
  /** The harness's guard: the runs after self-edit `of` all failed in ways its text can cause, so it was taken back. */
  z.looseObject({ kind: z.literal("guard"), of: StepId }),
  /** The mind merged trial `trial` (self fork) after trying it: `try` is the child trajectory its try ran in (self try). */
  z.looseObject({ kind: z.literal("merge"), trial: z.string(), try: StepId }),
]);
export type SelfEditBy = z.infer<typeof SelfEditBy>;
/**
 * A change to one of the mind's own texts under /workspace/self/ (issue 24).
 * Never rewritten: a revert is a new one. Written without a run_id (a nested
 * run's edit goes to the mind's own trajectory, where its run does not exist;
 * `by` says where it came from).
 */
export const SelfEditStep = kind("self-edit", {
  /** Workspace-relative: "self/instructions.md". */
  path: z.string().regex(/^self\/[^/]+(\/[^/]+)*$/, "a self-edit's path is under self/"),
  /** null: there was no such file. */
  before: Sha256.nullable(),
  /** null: the file was removed. */
  after: Sha256.nullable(),
  /** A unified diff from before to after (a/ and b/ paths, three lines of context). */
  diff: text,
  by: SelfEditBy,
  /** One line for people and the model: "I changed self/instructions.md (+3 −1)". */
  content: text,
});

/** Pacing, limits and model, as the human set them; written whenever they change. */
const QUIET_RANGE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;
function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
/** Quiet hours: stretches of the mind's local day with no spontaneous wake, and messages answered or held (lib/mind/pacing/quiet-hours.ts). */
export const QuietHours = z.object({
  /** An IANA time zone, e.g. Europe/Berlin. */
  tz: z.string().refine(knownZone, "not a known time zone (e.g. Europe/Berlin, America/New_York, UTC)"),
  /** Local ranges, start-end in 24-hour HH:MM; one that ends before it starts runs past midnight. */
  ranges: z
    .array(z.string().regex(QUIET_RANGE, 'a range is "HH:MM-HH:MM", e.g. "22:00-07:00"').refine((r) => r.slice(0, 5) !== r.slice(6), "a range must not start and end at the same minute"))
    .min(1)
    .max(8),
  /** Whether a due alarm, or an alert from an alert link, wakes the mind inside quiet hours (default yes); no: they wait for the stretch's end. */
  alarms: z.boolean().default(true),
  /**
   * A person's message inside quiet hours: "answer" wakes the mind and is
   * answered at once; "hold" waits, unanswered and waking nothing, until the
   * quiet stretch ends. Absent in config steps written before the choice: answer.
   */
  messages: z.enum(["answer", "hold"], { error: 'messages are "answer" (at once) or "hold" (until the quiet hours end)' }).default("answer"),
});
export type QuietHours = z.infer<typeof QuietHours>;

export const PacingConfig = z.object({
  base_s: z.number().positive(),
  cap_s: z.number().positive(),
  ticks_per_level: z.number().int().positive(),
  /** Absent: the mind may wake at any hour. */
  quiet: QuietHours.optional(),
});
export type PacingConfig = z.infer<typeof PacingConfig>;
/** A mind's spend caps in USD per UTC hour and per UTC day: the human's, like pacing. */
export const BudgetConfig = z.object({
  hour_usd: z.number().finite().positive("the hourly cap must be more than 0 USD"),
  day_usd: z.number().finite().positive("the daily cap must be more than 0 USD"),
});
export type BudgetConfig = z.infer<typeof BudgetConfig>;
export const ConfigStep = kind("config", {
  pacing: PacingConfig,
  max_iterations: z.number().int().positive(),
  model: z.string(),
  provider: z.string(),
  /** Absent in config steps written before permissions existed. */
  permissions: Permissions.optional(),
  /** Absent in config steps written before spend caps existed. */
  budget: BudgetConfig.optional(),
  /** The model that writes the mind's summaries, when its human picked one (absent: the mind's own). */
  summary_model: z.string().optional(),
});

export const KNOWN_KINDS = {
  trajectory: TrajectoryStep,
  "shellm-run": ShellmRunStep,
  prompt: PromptStep,
  reasoning: ReasoningStep,
  "shell-output": ShellOutputStep,
  feedback: FeedbackStep,
  final: FinalStep,
  error: ErrorStep,
  "run-summary": RunSummaryStep,
  thought: ThoughtStep,
  action: ActionStep,
  observation: ObservationStep,
  idle: IdleStep,
  message: MessageStep,
  fork: ForkStep,
  merge: MergeStep,
  wake: WakeStep,
  "monolith-wake": MonolithWakeStep,
  alarm: AlarmStep,
  config: ConfigStep,
  "self-edit": SelfEditStep,
} as const;

export type KnownKind = keyof typeof KNOWN_KINDS;
export type KnownStep = { [K in KnownKind]: z.infer<(typeof KNOWN_KINDS)[K]> }[KnownKind];
export type StepOf<K extends KnownKind> = z.infer<(typeof KNOWN_KINDS)[K]>;

/** A step of a kind this version does not know: kept and shown as-is. */
export const UnknownStep = z.looseObject({ type: z.string(), ...base });
export type UnknownStep = z.infer<typeof UnknownStep>;

export type Step = KnownStep | UnknownStep;

export function isKnownKind(type: string): type is KnownKind {
  return Object.prototype.hasOwnProperty.call(KNOWN_KINDS, type);
}

/** Narrow a step to a known kind: `if (isKind(step, "message")) step.from …`. Steps come parsed, so the type is their schema's. */
export function isKind<K extends KnownKind>(step: Step, kind: K): step is StepOf<K> {
  return step.type === kind;
}

export type ParseResult = { ok: true; step: Step } | { ok: false; error: string };

/** Each kind's schema, compiled once it has parsed a few dozen steps (./compiled.ts says why). */
const compiled: { [K in KnownKind]?: (typeof KNOWN_KINDS)[K] } = {};
const uses: { [K in KnownKind]?: number } = {};
const unknownStep = compiledOnUse(UnknownStep);

function schemaOf<K extends KnownKind>(type: K): (typeof KNOWN_KINDS)[K] {
  const done = compiled[type];
  if (done) return done;
  const n = (uses[type] = (uses[type] ?? 0) + 1);
  if (n < COMPILE_AFTER) return KNOWN_KINDS[type];
  return (compiled[type] = z.compile(KNOWN_KINDS[type]));
}

/** Parse one step; never throws. Known kinds must match their schema. */
export function parseStep(value: unknown): ParseResult {
  const type = typeof value === "object" && value !== null && "type" in value ? value.type : undefined;
  // A known kind's schema holds the common fields too: one pass, not two (every step the mind writes comes here).
  if (typeof type === "string" && isKnownKind(type)) {
    const full = schemaOf(type).safeParse(value);
    if (full.success) return { ok: true, step: full.data };
    // The same error as ever: the common fields' first, then the kind's own.
    const head = UnknownStep.safeParse(value);
    return { ok: false, error: head.success ? `${type}: ${describe(full.error)}` : describe(head.error) };
  }
  const head = unknownStep().safeParse(value);
  if (!head.success) return { ok: false, error: describe(head.error) };
  return { ok: true, step: head.data };
}

const asWritten: { [K in KnownKind]?: boolean } = {};

/**
 * parseStep for a reader that only reads a step's fields (the command line's
 * context of a long log): a valid value of a kind whose schema gives back what
 * it is given (parsesAsWritten) is its own step, validated without building a
 * copy; any other value is parsed. The same steps are valid, with the same
 * errors; their keys keep the line's order.
 */
export function checkStep(value: unknown): ParseResult {
  const type = typeof value === "object" && value !== null && "type" in value ? value.type : undefined;
  if (typeof type === "string" && isKnownKind(type) && (asWritten[type] ??= parsesAsWritten(KNOWN_KINDS[type])) && z.validate(schemaOf(type), value)) {
    // z.validate narrows to the schema's input type, which for a kind that parses as written is its output too.
    return { ok: true, step: value };
  }
  return parseStep(value);
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(step)"}: ${i.message}`).join("; ");
}

/** What a writer supplies; the id and time are stamped on append. */
export type NewStep = { [K in KnownKind]: Without<StepOf<K>, "step_id" | "ts"> }[KnownKind];

/** Omit for a loose object: `Omit` of a type with an index signature keeps only the index signature. */
type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };

/** The model call a step records, if it records one (the kinds a call leads to: reasoning, thought, observation, error). */
export function stepUsage(step: Step): StepUsage | undefined {
  if (isKind(step, "reasoning") || isKind(step, "thought") || isKind(step, "observation") || isKind(step, "error")) return step.usage;
  return undefined;
}

/** Kinds whose appearance means a wake did something (HEADLONG-FACTS, pacing). */
export const WORK_KINDS: ReadonlySet<string> = new Set(["thought", "action", "observation", "merge", "message"]);

/** Give a new step its id and time: the one place steps are stamped (the journal, the page's messages, config steps). */
export function stampStep(step: NewStep & { step_id?: string }, stamp: { id: string; now: number }): Step {
  const { step_id, ...rest } = step;
  // type, step_id and ts lead each line, as in Headlong's logs.
  return Object.assign({ type: step.type, step_id: step_id ?? stamp.id, ts: formatTs(stamp.now) }, rest);
}

/** UTC with milliseconds, the format Reverie writes. */
export function formatTs(ms: number): string {
  return new Date(ms).toISOString();
}
