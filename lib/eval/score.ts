// Scoring a played scenario (issue 23): each probe passes or fails with the
// steps that show it, and the run's figures. Pure: it reads the mind's steps
// (every trajectory of it, simulated timestamps), which message step each
// scenario event became, and what was written to the workspace and when.
//
// What counts as an answer to a person's message: a message from the mind to
// that person that replies to it (reply_to), or one to them that replies to
// nothing, sent after the message. A reply to another of their messages
// answers that one, not this.
import { isKind, stepUsage, type Step, type StepOf } from "../trajectory/schema";
import type { EventProbe, RunProbe, Scenario } from "./scenario";

const H = 3_600_000;

/** A scenario event as played: the message step it became. */
export interface PlayedEvent {
  /** Its index in the scenario's (time-ordered) events. */
  index: number;
  stepId: string;
}

/** A workspace file as it was after a block wrote it. */
export interface FileWrite {
  path: string;
  atMs: number;
  text: string;
}

/** A model call: when it started (simulated ms) and how long it really took (ms). */
export interface Call {
  atMs: number;
  ms: number;
}

export interface Played {
  scenario: Scenario;
  /** The simulated start, ms. */
  startMs: number;
  /** Every step of the mind, in the order written. */
  steps: Step[];
  events: PlayedEvent[];
  /** Workspace files as written, in order; paths relative to the workspace. */
  files: FileWrite[];
  /** Model calls made, counted at the model (the summarizer's leave no step); absent: the steps that carry a call's usage. */
  modelCalls?: number;
  /** Each model call, in the order made: when it started (simulated ms) and how long it really took. */
  calls?: Call[];
}

export interface ProbeResult {
  id: string;
  kind: EventProbe["kind"] | RunProbe["kind"];
  pass: boolean;
  /** Simulated hours from the start when it was decided (passed, or failed by something seen); null when decided by nothing happening. */
  at_h: number | null;
  /** When its person's message came (simulated hours); null for a probe of the whole run. */
  asked_h: number | null;
  /** The steps that show it. */
  evidence: string[];
  /** Why, in a line. */
  why: string;
}

type Message = StepOf<"message">;

const atMs = (s: Step) => Date.parse(s.ts);
const hoursAt = (p: Played, ms: number) => Math.round(((ms - p.startMs) / H) * 1000) / 1000;

function matches(text: string, expect: string | undefined, expectRe: string | undefined): boolean {
  if (expect !== undefined) return text.toLowerCase().includes(expect.toLowerCase());
  return expectRe !== undefined && new RegExp(expectRe, "iu").test(text);
}

/** Everything the run can be asked about a message: who sent it, when, and the mind's answers to it. */
function index(p: Played) {
  const byId = new Map(p.steps.map((s) => [s.step_id, s]));
  const messages = p.steps.filter((s): s is Message => isKind(s, "message"));
  const fromMind = messages.filter((m) => m.from === p.scenario.mind);
  /** The mind's answers to event `e` (see the head of this file), in order. */
  const answers = (e: PlayedEvent): Message[] => {
    const msg = byId.get(e.stepId) as Message | undefined;
    if (!msg) return [];
    const at = atMs(msg);
    return fromMind.filter((m) => m.to === msg.from && atMs(m) >= at && (m.reply_to === msg.step_id || m.reply_to === undefined));
  };
  return { byId, fromMind, answers };
}

export function scoreProbes(p: Played): ProbeResult[] {
  const { byId, fromMind, answers } = index(p);
  const out: ProbeResult[] = [];
  for (const e of p.events) {
    const probe = p.scenario.events[e.index]?.probe;
    const msg = byId.get(e.stepId) as Message | undefined;
    if (!probe || !msg) continue;
    const sent = atMs(msg);
    const deadline = "within_h" in probe ? sent + probe.within_h * H : Infinity;
    const inTime = answers(e).filter((m) => atMs(m) <= deadline);
    const result = (pass: boolean, evidence: Step[], why: string, decidedAt: number | null): ProbeResult => ({
      id: probe.id,
      kind: probe.kind,
      pass,
      at_h: decidedAt === null ? null : hoursAt(p, decidedAt),
      asked_h: hoursAt(p, sent),
      evidence: [msg.step_id, ...evidence.map((s) => s.step_id)],
      why,
    });
    switch (probe.kind) {
      case "reply": {
        const first = inTime[0];
        out.push(first ? result(true, [first], `answered ${seconds(atMs(first) - sent)} after`, atMs(first)) : result(false, [], `no answer to ${msg.from} within ${probe.within_h} h`, null));
        break;
      }
      case "no-reply": {
        const first = inTime[0];
        out.push(first ? result(false, [first], `answered ${msg.from} though asked not to`, atMs(first)) : result(true, [], `no answer within ${probe.within_h} h`, null));
        break;
      }
      case "recall": {
        const right = inTime.find((m) => matches(m.content, probe.expect, probe.expect_re));
        if (right) out.push(result(true, [right], "the answer has it", atMs(right)));
        else if (inTime[0]) out.push(result(false, inTime, "answered, without it", atMs(inTime[0])));
        else out.push(result(false, [], `no answer within ${probe.within_h} h`, null));
        break;
      }
      case "unprompted": {
        if (probe.file !== undefined && probe.contains !== undefined) {
          const write = p.files.find((f) => f.path === probe.file && f.atMs >= sent && f.atMs <= deadline && f.text.includes(probe.contains as string));
          out.push(write ? result(true, [], `${probe.file} has it`, write.atMs) : result(false, [], `${probe.file} did not have it within ${probe.within_h} h`, null));
        } else {
          const told = fromMind.find((m) => m.to === probe.to && atMs(m) >= sent && atMs(m) <= deadline && matches(m.content, probe.expect, probe.expect_re));
          out.push(told ? result(true, [told], `told ${probe.to}`, atMs(told)) : result(false, [], `${probe.to} was not told within ${probe.within_h} h`, null));
        }
        break;
      }
      case "once": {
        const replies = answers(e).filter((m) => m.reply_to === msg.step_id);
        out.push(replies.length <= 1 ? result(true, replies, replies.length ? "answered once" : "not answered", null) : result(false, replies, `answered ${replies.length} times`, atMs(replies[1] as Message)));
        break;
      }
    }
  }
  for (const probe of p.scenario.probes ?? []) {
    if (probe.kind === "once") {
      const twice = p.events.map((e) => answers(e).filter((m) => m.reply_to === e.stepId)).filter((r) => r.length > 1);
      out.push({
        id: probe.id,
        kind: "once",
        pass: twice.length === 0,
        at_h: twice.length ? hoursAt(p, Math.min(...twice.map((r) => atMs(r[1] as Message)))) : null,
        asked_h: null,
        evidence: twice.flat().map((m) => m.step_id),
        why: twice.length ? `${twice.length} message(s) answered more than once` : "every message answered at most once",
      });
    } else {
      const until = probe.within_h === undefined ? Infinity : p.startMs + probe.within_h * H;
      const usd = spend(p.steps, until);
      out.push({ id: probe.id, kind: "budget", pass: usd < probe.max_usd, at_h: null, asked_h: null, evidence: [], why: `spent $${usd.toFixed(4)} of $${probe.max_usd}` });
    }
  }
  return out;
}

/** USD of every model call up to `untilMs`. */
export function spend(steps: Step[], untilMs = Infinity): number {
  let usd = 0;
  for (const s of steps) {
    const u = stepUsage(s);
    if (u?.usd !== undefined && atMs(s) <= untilMs) usd += u.usd;
  }
  return usd;
}

/** One wake of the mind, the per-cycle log Headlong's users asked for. */
export interface WakeLine {
  at_h: number;
  reason: string;
  /** talk: it sent a message; act: it ran a block beyond setting FINAL; think: a thought without code; idle: nothing more. */
  mode: "talk" | "act" | "think" | "idle";
  tokens: number;
  model_s: number;
  exec_s: number;
}

const tokensOf = (s: Step) => {
  const u = stepUsage(s);
  return u ? u.input_tokens + u.output_tokens : 0;
};
/** Lines that only set FINAL (how a run ends) are not acting. */
const onlyFinal = (cmd: string) => cmd.split("\n").every((l) => !l.trim() || /^\s*FINAL=/.test(l));

/** Every wake, with what it did and what it cost: the steps from one wake step to the next. */
export function wakeLog(p: Played): WakeLine[] {
  const out: WakeLine[] = [];
  const wakes = p.steps.map((s, i) => ({ s, i })).filter(({ s }) => s.type === "wake");
  const calls = p.calls ?? [];
  let c = 0;
  wakes.forEach(({ s: wake, i }, w) => {
    const end = wakes[w + 1]?.i ?? p.steps.length;
    const part = p.steps.slice(i, end);
    const from = atMs(wake);
    const until = w + 1 < wakes.length ? atMs(p.steps[end] as Step) : Infinity;
    const mode: WakeLine["mode"] = part.some((x) => isKind(x, "message") && x.from === p.scenario.mind)
      ? "talk"
      : part.some((x) => isKind(x, "reasoning") && !onlyFinal(x.cmd))
        ? "act"
        : part.some((x) => isKind(x, "thought"))
          ? "think"
          : "idle";
    // Calls and wakes are both in time order: one pass over the calls for the whole log.
    while (c < calls.length && (calls[c] as Call).atMs < from) c++;
    let modelMs = 0;
    for (let k = c; k < calls.length && (calls[k] as Call).atMs < until; k++) modelMs += (calls[k] as Call).ms;
    const execS = part.reduce((a, x) => a + (isKind(x, "shell-output") ? (x.exec_s ?? 0) : 0), 0);
    out.push({ at_h: hoursAt(p, from), reason: String((wake as { reason?: unknown }).reason ?? ""), mode, tokens: part.reduce((a, x) => a + tokensOf(x), 0), model_s: Math.round(modelMs) / 1000, exec_s: Math.round(execS * 1000) / 1000 });
  });
  return out;
}

/** Tokens of every model call recorded on a step, per simulated hour (hour 0 first, as many hours as the scenario has). */
export function tokensByHour(p: Played): number[] {
  const hours = new Array<number>(Math.max(1, Math.ceil(p.scenario.duration_h))).fill(0);
  for (const s of p.steps) {
    const t = tokensOf(s);
    if (!t) continue;
    const h = Math.min(hours.length - 1, Math.max(0, Math.floor((atMs(s) - p.startMs) / H)));
    hours[h] = (hours[h] ?? 0) + t;
  }
  return hours;
}

export interface Metrics {
  first_response_s_p50: number | null;
  first_response_s_p95: number | null;
  /** Of the events, the share the mind answered at all (events whose probe asked for no answer left out). */
  reply_rate: number | null;
  duplicate_replies: number;
  recall_accuracy: number | null;
  unprompted_done: number;
  model_calls: number;
  usd_per_hour: number;
  /** Tokens of idle wakes, and of the others, per simulated hour. */
  tokens_per_hour_idle: number;
  tokens_per_hour_busy: number;
  /** Input tokens of the calls recorded on steps. */
  context_tokens_p50: number | null;
  context_tokens_max: number | null;
  errors_by_reason: Record<string, number>;
}

export function scoreMetrics(p: Played, probes: ProbeResult[] = scoreProbes(p)): Metrics {
  const { byId, answers } = index(p);
  const asked = p.events.filter((e) => p.scenario.events[e.index]?.probe?.kind !== "no-reply" && byId.has(e.stepId));
  const firsts: number[] = [];
  let answered = 0;
  let duplicates = 0;
  for (const e of p.events) {
    const msg = byId.get(e.stepId);
    if (!msg) continue;
    const all = answers(e);
    duplicates += Math.max(0, all.filter((m) => m.reply_to === e.stepId).length - 1);
    if (!asked.includes(e)) continue;
    const first = all[0];
    if (first) {
      answered++;
      firsts.push((atMs(first) - atMs(msg)) / 1000);
    }
  }
  firsts.sort((a, b) => a - b);
  const recalls = probes.filter((r) => r.kind === "recall");
  const wakes = wakeLog(p);
  const perHour = (xs: WakeLine[]) => xs.reduce((a, x) => a + x.tokens, 0) / p.scenario.duration_h;
  const contexts = p.steps.flatMap((s) => {
    const u = stepUsage(s);
    return u ? [u.input_tokens] : [];
  });
  contexts.sort((a, b) => a - b);
  const errors: Record<string, number> = {};
  for (const s of p.steps) if (isKind(s, "error")) errors[s.reason] = (errors[s.reason] ?? 0) + 1;
  return {
    first_response_s_p50: quantile(firsts, 0.5),
    first_response_s_p95: quantile(firsts, 0.95),
    reply_rate: asked.length ? answered / asked.length : null,
    duplicate_replies: duplicates,
    recall_accuracy: recalls.length ? recalls.filter((r) => r.pass).length / recalls.length : null,
    unprompted_done: probes.filter((r) => r.kind === "unprompted" && r.pass).length,
    model_calls: p.modelCalls ?? p.steps.filter((s) => stepUsage(s) !== undefined).length,
    usd_per_hour: spend(p.steps) / p.scenario.duration_h,
    tokens_per_hour_idle: Math.round(perHour(wakes.filter((x) => x.mode === "idle"))),
    tokens_per_hour_busy: Math.round(perHour(wakes.filter((x) => x.mode !== "idle"))),
    context_tokens_p50: quantile(contexts, 0.5),
    context_tokens_max: contexts.at(-1) ?? null,
    errors_by_reason: errors,
  };
}

/** The q-quantile of sorted values (nearest rank); null when there are none. */
function quantile(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
}

const seconds = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms / 6000) / 10} min`);
