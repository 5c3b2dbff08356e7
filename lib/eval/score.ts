// Scoring a played scenario (issue 23): each probe passes or fails with the
// steps that show it, and the run's figures. Pure: it reads the mind's steps
// (every trajectory of it, simulated timestamps), which message step each
// scenario event became, what was written to the workspace and when, and
// each model call with what it cost.
//
// What an answer, a duplicate and an unprompted message are: answers.ts. What
// a call costs (the larger of the reported and the counted tokens, the
// summarizer's calls too): meter.ts, where the scenario's home prices them.
import { isKind, stepUsage, type Step } from "../trajectory/schema";
import { conversations, unpromptedByPersonDay, type Conversations, type Message } from "./answers";
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

/** A model call: when it started (simulated ms), how long it really took (ms), and what it cost. */
export interface Call {
  atMs: number;
  ms: number;
  /** USD at the run's price, on the larger of the reported and the counted tokens (meter.ts). */
  usd: number;
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
  /** Each model call, in the order made (the summarizer's too); absent: spend is what the steps' usage says (a life written by hand). */
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

/**
 * A reply that `recall` (or a message that `unprompted`) counts as matching is
 * at most this long: a mind that sends all it knows has not recalled anything.
 */
export const MAX_MATCH_CHARS = 600;

const atMs = (s: Step) => Date.parse(s.ts);
const hoursAt = (p: Played, ms: number) => Math.round(((ms - p.startMs) / H) * 1000) / 1000;

function matches(text: string, expect: string | undefined, expectRe: string | undefined): boolean {
  if (text.length > MAX_MATCH_CHARS) return false;
  if (expect !== undefined) return text.toLowerCase().includes(expect.toLowerCase());
  return expectRe !== undefined && new RegExp(expectRe, "iu").test(text);
}

/** Everything the run can be asked about a message: its step, and who answered it how (answers.ts). */
function index(p: Played) {
  const byId = new Map(p.steps.map((s) => [s.step_id, s]));
  const fromMind = p.steps.filter((s): s is Message => isKind(s, "message") && s.from === p.scenario.mind);
  return { byId, fromMind, talk: conversations(p.steps, p.scenario.mind) };
}

export function scoreProbes(p: Played): ProbeResult[] {
  const { byId, fromMind, talk } = index(p);
  const out: ProbeResult[] = [];
  for (const e of p.events) {
    const probe = p.scenario.events[e.index]?.probe;
    const step = byId.get(e.stepId);
    const msg = step && isKind(step, "message") ? step : undefined;
    if (!probe || !msg) continue;
    const sent = atMs(msg);
    const deadline = "within_h" in probe ? sent + probe.within_h * H : Infinity;
    const answer = talk.answerTo(msg.step_id);
    const inTime = answer && atMs(answer) <= deadline ? answer : undefined;
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
        out.push(inTime ? result(true, [inTime], `answered ${seconds(atMs(inTime) - sent)} after`, atMs(inTime)) : result(false, [], `no answer to ${msg.from} within ${probe.within_h} h`, null));
        break;
      }
      case "no-reply": {
        out.push(inTime ? result(false, [inTime], `answered ${msg.from} though asked not to`, atMs(inTime)) : result(true, [], `no answer within ${probe.within_h} h`, null));
        break;
      }
      case "recall": {
        if (!inTime) out.push(result(false, [], `no answer within ${probe.within_h} h`, null));
        else if (matches(inTime.content, probe.expect, probe.expect_re)) out.push(result(true, [inTime], "the answer has it", atMs(inTime)));
        else if (inTime.content.length > MAX_MATCH_CHARS) out.push(result(false, [inTime], `answered with ${inTime.content.length} characters (a recall is at most ${MAX_MATCH_CHARS})`, atMs(inTime)));
        else out.push(result(false, [inTime], "answered, without it", atMs(inTime)));
        break;
      }
      case "unprompted": {
        if (probe.file !== undefined && probe.contains !== undefined) {
          const { file, contains } = probe;
          const write = p.files.find((f) => f.path === file && f.atMs >= sent && f.atMs <= deadline && f.text.includes(contains));
          out.push(write ? result(true, [], `${file} has it`, write.atMs) : result(false, [], `${file} did not have it within ${probe.within_h} h`, null));
        } else {
          const told = fromMind.find((m) => m.to === probe.to && atMs(m) >= sent && atMs(m) <= deadline && matches(m.content, probe.expect, probe.expect_re));
          out.push(told ? result(true, [told], `told ${probe.to}`, atMs(told)) : result(false, [], `${probe.to} was not told within ${probe.within_h} h`, null));
        }
        break;
      }
      case "once": {
        const more = talk.duplicatesOf(msg.step_id);
        const shown = [...(answer ? [answer] : []), ...more];
        const first = more[0];
        out.push(first ? result(false, shown, `${more.length} more message(s) to ${msg.from} before they wrote again`, atMs(first)) : result(true, shown, answer ? "answered once" : "not answered", null));
        break;
      }
    }
  }
  for (const probe of p.scenario.probes ?? []) out.push(runProbe(p, probe, talk));
  return out;
}

/** A probe of the whole run. */
function runProbe(p: Played, probe: RunProbe, talk: Conversations): ProbeResult {
  const whole = { id: probe.id, kind: probe.kind, asked_h: null };
  switch (probe.kind) {
    case "once": {
      const over = p.events.map((e) => ({ answer: talk.answerTo(e.stepId), more: talk.duplicatesOf(e.stepId) })).filter((x) => x.more.length > 0);
      const extra = over.reduce((n, x) => n + x.more.length, 0);
      const firstExtra = Math.min(...over.flatMap((x) => x.more.map(atMs)));
      return {
        ...whole,
        pass: over.length === 0,
        at_h: over.length ? hoursAt(p, firstExtra) : null,
        evidence: over.flatMap((x) => [...(x.answer ? [x.answer] : []), ...x.more]).map((m) => m.step_id),
        why: over.length ? `${over.length} message(s) answered more than once (${extra} duplicate(s))` : "every message answered at most once",
      };
    }
    case "budget": {
      const usd = spend(p, probe.within_h === undefined ? Infinity : p.startMs + probe.within_h * H);
      return { ...whole, pass: usd < probe.max_usd, at_h: null, evidence: [], why: `spent $${usd.toFixed(4)} of $${probe.max_usd}` };
    }
    case "quiet": {
      const days = unpromptedByPersonDay(talk.unprompted, p.startMs);
      const over = days.filter((d) => d.messages.length > probe.max_per_day);
      const past = over.flatMap((d) => d.messages.slice(probe.max_per_day));
      const most = days[0];
      if (!over[0]) return { ...whole, pass: true, at_h: null, evidence: [], why: most ? `at most ${most.messages.length} unprompted message(s) to anyone on a day (${probe.max_per_day} allowed)` : "no unprompted messages" };
      const also = over.length > 1 ? `; ${over.length - 1} more person-day(s) over` : "";
      return {
        ...whole,
        pass: false,
        at_h: hoursAt(p, Math.min(...past.map(atMs))),
        evidence: past.map((m) => m.step_id),
        why: `${over[0].person} got ${over[0].messages.length} unprompted messages on day ${over[0].day} (at most ${probe.max_per_day})${also}`,
      };
    }
  }
}

/** USD of every model call up to `untilMs`: the metered calls, or (a life without them) what the steps' usage says. */
export function spend(p: Pick<Played, "steps" | "calls">, untilMs = Infinity): number {
  let usd = 0;
  if (p.calls) {
    for (const c of p.calls) if (c.atMs <= untilMs) usd += c.usd;
    return usd;
  }
  for (const s of p.steps) {
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
  /** Messages to a person after their message, before they wrote again, that answer nothing (answers.ts). */
  duplicate_replies: number;
  recall_accuracy: number | null;
  unprompted_done: number;
  /** Messages from the mind that answer nothing, per person (the scenario's people) per simulated day (rounded to 0.001). */
  unprompted_per_person_day: number;
  model_calls: number;
  /** Every call's cost (the summarizer's too, on the larger of reported and counted tokens) per simulated hour. */
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
  const { byId, talk } = index(p);
  const asked = p.events.filter((e) => p.scenario.events[e.index]?.probe?.kind !== "no-reply" && byId.has(e.stepId));
  const firsts: number[] = [];
  for (const e of asked) {
    const msg = byId.get(e.stepId);
    const answer = talk.answerTo(e.stepId);
    if (msg && answer) firsts.push((atMs(answer) - atMs(msg)) / 1000);
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
    reply_rate: asked.length ? firsts.length / asked.length : null,
    duplicate_replies: talk.duplicates.length,
    recall_accuracy: recalls.length ? recalls.filter((r) => r.pass).length / recalls.length : null,
    unprompted_done: probes.filter((r) => r.kind === "unprompted" && r.pass).length,
    unprompted_per_person_day: Math.round((talk.unprompted.length / (p.scenario.people.length * (p.scenario.duration_h / 24))) * 1000) / 1000,
    model_calls: p.modelCalls ?? p.steps.filter((s) => stepUsage(s) !== undefined).length,
    usd_per_hour: spend(p) / p.scenario.duration_h,
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
