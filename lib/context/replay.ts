// "What the model saw": a small record of one model call, and the exact
// messages rebuilt from it. A mind makes thousands of calls, so the record
// keeps no message text: only which steps each part covers (ids, or a block's
// ends), which sealed summary stood for a block, the standing instructions
// split into parts (their text is stored once, by the store, deduplicated),
// and the token counts. Steps and sealed summaries never change, so the
// messages rebuilt from them are the ones sent. Pure. (The store keeps it
// smaller still, most records as a delta against the run's previous one, and
// hands back this whole form: lib/store/derived/seen-delta.ts.)
//
// The notes and summary headers come from buildContext's own `notes`;
// test/unit/context/replay.test.ts checks, byte for byte, that a replay equals
// what buildContext produced.
import * as z from "zod";
import type { Step } from "../trajectory/schema";
import { joinMessages, notes, partSpan, type BuildOptions, type BuiltContext, type ContextSource } from "./build";
import { conversationMessages, isMessage, type ConversationView } from "./conversation";
import { renderStep, type ChatMessage } from "./project";
import { blockRange, type BlockRef } from "./staircase";
import { MESSAGE_OVERHEAD } from "./message-overhead";
import type { TokenCounter } from "./tokens";

/** The parts of the standing instructions (lib/mind/run/prompt.ts); "first-look": an idle wake's first call, which has lean ones; "instructions" when they could not be split. */
export const SystemKind = z.enum(["persona", "how-to-act", "commands", "people", "skills", "first-look", "instructions"]);
export type SystemKind = z.infer<typeof SystemKind>;

export interface SystemPart {
  kind: SystemKind;
  text: string;
  /** The mind's own file the part was rendered from (self/instructions.md is "instructions.md"), and that text's sha256 as recorded: absent for generated parts (the command list, the skills) and in calls recorded before self/. */
  file?: string;
  sha?: string;
}

const ids = z.array(z.string());
const tokens = z.number().int().min(0);

/** One part of a call's context, as recorded. Tier and elided parts name their ends, not every step (a block can cover 10,000s). */
export const SeenPart = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ancestors"), step_ids: ids, tokens }),
  z.object({ kind: z.literal("pinned"), step_ids: ids, tokens }),
  z.object({ kind: z.literal("verbatim"), step_ids: ids, tokens }),
  z.object({ kind: z.literal("tier"), tier: z.number().int(), index: z.number().int(), count: z.number().int(), first: z.string(), last: z.string(), cites: ids, tokens }),
  /** The responder's one message: the inner life's latest steps, the conversation so far, the message it answers. */
  z.object({ kind: z.literal("conversation"), person: z.string(), inner: ids, conversation: ids, message: z.string(), tokens }),
  z.object({
    kind: z.literal("elided"),
    /** range: a stretch of the stream; before: steps not at hand at all; fold: older parts folded to fit the budget. */
    note: z.enum(["range", "before", "fold"]),
    tier: z.number().int(),
    index: z.number().int(),
    reason: z.string(),
    count: z.number().int(),
    first: z.string().optional(),
    last: z.string().optional(),
    tokens,
  }),
]);
export type SeenPart = z.infer<typeof SeenPart>;

/** What one model call saw, with the instructions' text at hand (the store keeps that text apart, by hash). */
export interface SeenCall {
  /** The step the call led to: its reasoning, thought or error. */
  step_id: string;
  run_id: string;
  /** The trajectory whose stream the context was cut from (its sealed summaries are this trajectory's). */
  traj_id: string;
  /** Which call of its run (from 1). */
  iteration: number;
  self_name: string;
  budget: number;
  /** Steps before the source that were not at hand (buildContext's `before`). */
  before: number;
  /** The context messages' tokens, as buildContext counted them. */
  tokens: number;
  system: (SystemPart & { tokens: number })[];
  parts: SeenPart[];
}

const BEFORE_REASON = "not at hand";
const FOLD_REASON = "over the token budget";

/** The record of a call, from what buildContext returned and the options it was given. */
export function seenCall(
  built: BuiltContext,
  opts: BuildOptions,
  src: ContextSource,
  call: { step_id: string; run_id: string; traj_id: string; iteration: number; system: readonly SystemPart[] },
): SeenCall {
  const counter: TokenCounter = opts.counter;
  const parts = built.parts.map((p): SeenPart => {
    switch (p.kind) {
      case "ancestors":
      case "pinned":
      case "verbatim":
        return { kind: p.kind, step_ids: [...p.step_ids], tokens: p.tokens };
      case "tier": {
        // The block's ends from the source: reading p.step_ids would copy every id it covers.
        const { from, to } = blockRange(p, opts.tiers);
        return { kind: "tier", tier: p.tier, index: p.index, count: to - from, first: src.ids(from, from + 1)[0] ?? "", last: src.ids(to - 1, to)[0] ?? "", cites: [...p.cites], tokens: p.tokens };
      }
      case "elided": {
        const note = p.tier === -1 && p.reason === BEFORE_REASON ? "before" : p.tier === -1 && p.reason === FOLD_REASON ? "fold" : "range";
        // Its extent and ends, not every id it covers: a fold can cover most of a 100k-step stream.
        const span = partSpan(p) ?? { from: 0, to: 0 };
        const count = span.to - span.from;
        const ends = count > 0 ? { first: src.ids(span.from, span.from + 1)[0], last: src.ids(span.to - 1, span.to)[0] } : {};
        return { kind: "elided", note, tier: p.tier, index: p.index, reason: p.reason, count, ...ends, tokens: p.tokens };
      }
    }
  });
  return {
    ...call,
    self_name: opts.selfName,
    budget: opts.budget,
    before: opts.before ?? 0,
    tokens: built.tokens,
    system: call.system.map((s) => ({ ...s, tokens: counter.cached(`system:${s.kind}:${s.text}`, s.text) })),
    parts,
  };
}

/** The record of the responder's call: one conversation part, its instructions unsplit, no token budget (0). */
export function conversationCall(
  view: ConversationView,
  call: { step_id: string; run_id: string; traj_id: string; system: SystemPart; counter: TokenCounter },
): SeenCall {
  const [message] = conversationMessages(view);
  const tokens = call.counter.count(message?.content ?? "");
  return {
    step_id: call.step_id,
    run_id: call.run_id,
    traj_id: call.traj_id,
    iteration: 1,
    self_name: view.selfName,
    budget: 0,
    before: 0,
    tokens: tokens + MESSAGE_OVERHEAD,
    system: [{ ...call.system, tokens: call.counter.cached(`system:${call.system.kind}:${call.system.text}`, call.system.text) }],
    parts: [{ kind: "conversation", person: view.person, inner: view.inner.map((s) => s.step_id), conversation: view.conversation.map((m) => m.step_id), message: view.message.step_id, tokens }],
  };
}

/** The step ids a recorded part shows whole (to read them before a replay). */
export function shownSteps(part: SeenPart): string[] {
  if (part.kind === "ancestors" || part.kind === "pinned" || part.kind === "verbatim") return part.step_ids;
  if (part.kind === "conversation") return [...part.inner, ...part.conversation, part.message];
  return [];
}

export interface ReplayLookups {
  /** A step of the mind by id (any of its trajectories: ancestors live in the parents'). */
  step(id: string): Step | undefined;
  /** The content of the sealed summary that stood for a block of the call's trajectory. */
  summary(block: BlockRef): string | undefined;
}

export interface Replayed {
  /** The standing instructions (sent as the system message). */
  system: string;
  messages: ChatMessage[];
  /** What could not be found (step ids, summaries): when not empty, the messages are not exactly those sent. */
  missing: string[];
}

/** The messages of one part, before consecutive messages of a role are joined. */
function partMessages(part: SeenPart, call: SeenCall, look: ReplayLookups, missing: string[], firstTier: boolean): ChatMessage[] {
  const steps = (stepIds: readonly string[]) =>
    stepIds.flatMap((id) => {
      const step = look.step(id);
      if (!step) {
        missing.push(id);
        return [{ role: "user" as const, content: `[step ${id} is missing]` }];
      }
      const m = renderStep(step, call.self_name);
      return m ? [m] : [];
    });
  switch (part.kind) {
    case "pinned":
    case "verbatim":
      return steps(part.step_ids);
    case "ancestors": {
      const out = steps(part.step_ids).map((m): ChatMessage => ({ role: "user", content: `${m.role === "assistant" ? "(parent)" : "(to parent)"} ${m.content}` }));
      if (out.length) out.unshift({ role: "user", content: "[Background: the recent steps of the trajectories you were forked from, up to the fork. They are not yours to continue.]" });
      return out;
    }
    case "tier": {
      let content = look.summary(part);
      if (content === undefined) {
        missing.push(`summary tier ${part.tier} #${part.index}`);
        content = "[this sealed summary is missing]";
      }
      return [{ role: "user", content: notes.summary(part.count, part.first, part.last, part.tier, { content, cites: part.cites }, firstTier) }];
    }
    case "conversation": {
      const found = (id: string) => {
        const step = look.step(id);
        if (!step) missing.push(id);
        return step;
      };
      const inner = part.inner.flatMap((id) => found(id) ?? []);
      const conversation = part.conversation.flatMap((id) => found(id) ?? []).filter(isMessage);
      const message = found(part.message);
      if (!message || !isMessage(message)) {
        if (message) missing.push(part.message);
        return [{ role: "user", content: `[message ${part.message} is missing]` }];
      }
      return conversationMessages({ person: part.person, selfName: call.self_name, inner, conversation, message });
    }
    case "elided":
      if (part.note === "before") return [{ role: "user", content: notes.before(call.before) }];
      if (part.note === "fold") return [{ role: "user", content: notes.fold(part.count) }];
      return [{ role: "user", content: notes.elided(part.count, part.first, part.last, part.reason) }];
  }
}

/** The exact instructions and messages a recorded call sent. */
export function replay(call: SeenCall, look: ReplayLookups): Replayed {
  const missing: string[] = [];
  const firstTier = call.parts.findIndex((p) => p.kind === "tier");
  const messages = joinMessages(call.parts.flatMap((p, i) => partMessages(p, call, look, missing, i === firstTier)));
  return { system: call.system.map((s) => s.text).join(""), messages, missing };
}

/** One line of the inspector's token table. */
export interface TokenLine {
  kind: string;
  label: string;
  tokens: number;
  /** The part of the context this line is (absent for the instructions and the framing). */
  part?: SeenPart;
  /** An instructions' part from the mind's own file: the file, and the sha256 of its text as recorded. */
  file?: string;
  sha?: string;
}

/**
 * Every token of the call, by part: the instructions' parts, each context
 * part, and the framing (each message's overhead and the joins of messages of
 * one role), so the lines add up to the total. Each part is counted on its
 * own, as buildContext does.
 */
export function tokenLines(call: SeenCall): { lines: TokenLine[]; total: number } {
  // A part rendered from the mind's own file is named by it and its version (the sha a self-edit's `after` names).
  const lines: TokenLine[] = call.system.map((s) => (s.file !== undefined && s.sha !== undefined ? { kind: s.kind, label: `${s.file} · ${s.sha.slice(0, 8)}`, tokens: s.tokens, file: s.file, sha: s.sha } : { kind: s.kind, label: s.kind, tokens: s.tokens }));
  for (const p of call.parts) {
    const label =
      p.kind === "tier"
        ? `tier ${p.tier} summary #${p.index} (${p.count} steps)`
        : p.kind === "conversation"
          ? `conversation with ${p.person} (${p.conversation.length} earlier message${p.conversation.length === 1 ? "" : "s"}, ${p.inner.length} inner-life step${p.inner.length === 1 ? "" : "s"})`
        : p.kind === "elided"
          ? `elided (${p.note === "before" ? call.before : p.count} steps): ${p.reason}`
          : `${p.kind} (${p.step_ids.length} step${p.step_ids.length === 1 ? "" : "s"})`;
    lines.push({ kind: p.kind, label, tokens: p.tokens, part: p });
  }
  const partsTokens = call.parts.reduce((n, p) => n + p.tokens, 0);
  // The system message's own overhead, and the context's (its messages' overheads and joins).
  const framing = (call.system.length ? MESSAGE_OVERHEAD : 0) + call.tokens - partsTokens;
  lines.push({ kind: "framing", label: "message framing", tokens: framing });
  return { lines, total: lines.reduce((n, l) => n + l.tokens, 0) };
}
