// The pieces buildContext assembles a context from, and the arithmetic of
// their tokens: a piece is a part with its messages; the tokens of a
// sequence of pieces are worked out from each piece's runs of one role,
// without joining their messages.
import type { ChatMessage } from "./project";
import { joinMessages, type ContextPart, type Summary } from "./parts";
import type { PlanPart } from "./staircase";
import type { ContextSource } from "./stream";
import { MESSAGE_OVERHEAD } from "./message-overhead";
import type { TokenCounter } from "./tokens";

export interface Piece {
  part: ContextPart;
  /** Messages of this piece, in order. */
  messages: ChatMessage[];
  /** A summary's or an elision's piece: what it was made of, to tell whether a later call may use it again (BuildCache). */
  made?: Made;
  /** What `total` needs of the messages, once worked out (or given: a verbatim tail tried while searching for the cut has no messages). */
  runs?: Runs;
}

/** What a summary's or an elision's piece was made of. */
export interface Made {
  from: number;
  to: number;
  first: string | undefined;
  last: string | undefined;
  counter: TokenCounter;
  /** The source its `step_ids` are read from when asked for: the latest call's that used it (an older one's steps are not held on to). */
  src: ContextSource;
  /** A summary's piece: its block in the plan, its summary, and whether it carries the hint on reading steps. */
  tier?: { plan: Extract<PlanPart, { kind: "tier" }>; summary: Summary; hint: boolean };
}

/** A step as the context shows it: its message (null: bookkeeping) and that message's tokens. */
export interface Shown {
  message: ChatMessage | null;
  tokens: number;
}

/**
 * What a sequence of messages adds to a context's tokens, without the
 * messages: their count, their runs of one role (each run is one message once
 * joined) and the roles they start and end with (a run can go on across
 * pieces).
 */
export interface Runs {
  tokens: number;
  messages: number;
  runs: number;
  first: ChatMessage["role"] | null;
  last: ChatMessage["role"] | null;
}

export const NO_RUNS: Runs = { tokens: 0, messages: 0, runs: 0, first: null, last: null };

/** `a` then `b`. */
export function chain(a: Runs, b: Runs): Runs {
  if (!a.messages && !a.tokens) return b;
  if (!b.messages && !b.tokens) return a;
  if (!a.messages) return { ...b, tokens: a.tokens + b.tokens };
  if (!b.messages) return { ...a, tokens: a.tokens + b.tokens };
  return { tokens: a.tokens + b.tokens, messages: a.messages + b.messages, runs: a.runs + b.runs - (a.last === b.first ? 1 : 0), first: a.first, last: b.last };
}

function runsOf(piece: Piece): Runs {
  if (piece.runs) return piece.runs;
  let runs = 0;
  let role: ChatMessage["role"] | null = null;
  for (const m of piece.messages) {
    if (m.role !== role) runs++;
    role = m.role;
  }
  return (piece.runs = { tokens: piece.part.tokens, messages: piece.messages.length, runs, first: piece.messages[0]?.role ?? null, last: role });
}

/** Tokens of the messages the pieces make: their parts, each message's own overhead, a token for each join. */
export function total(pieces: readonly Piece[]): number {
  let tokens = 0;
  let messages = 0;
  let runs = 0;
  let role: ChatMessage["role"] | null = null;
  for (const p of pieces) {
    const r = runsOf(p);
    tokens += r.tokens;
    if (!r.messages) continue;
    messages += r.messages;
    runs += r.runs - (r.first === role ? 1 : 0);
    role = r.last;
  }
  return tokens + runs * MESSAGE_OVERHEAD + (messages - runs);
}

export const toMessages = (pieces: readonly Piece[]) => joinMessages(pieces.flatMap((p) => p.messages));

/** A part of the plan as assembled: an elided block with the ones after it elided for the same reason (they read as one stretch, to `to`), or a part alone. */
export interface Stretch {
  part: PlanPart;
  to: number;
}

export function stretches(parts: readonly PlanPart[]): Stretch[] {
  const out: Stretch[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    // Neighbouring blocks elided for the same reason read as one stretch.
    if (p.kind === "elided" && last?.part.kind === "elided" && last.part.reason === p.reason) last.to = p.to;
    else out.push({ part: p, to: p.to });
  }
  return out;
}
