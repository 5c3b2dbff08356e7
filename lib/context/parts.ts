// What a built context is made of: its messages and its parts, each part
// saying which steps of the stream it stands for (verbatim, summarized or
// elided), and the notes that stand for steps not shown verbatim.
import type { ChatMessage } from "./project";
import type { ContextSource } from "./stream";

/** A sealed summary: in the mind's own voice, citing steps it covers. */
export interface Summary {
  content: string;
  cites: readonly string[];
}

/** Positions [from, to) of the stream. */
export interface Span {
  from: number;
  to: number;
}

/**
 * The positions of the stream a tier or elided part covers, kept beside the
 * part (not one of its fields: the part's fields are what `reverie context
 * --json` prints, so it is a symbol, and not enumerable). A sealed past read
 * from its summaries knows an old block by its ends alone, so who needs a
 * part's extent asks here (partSpan), not its step_ids.
 */
const SPAN = Symbol("span");

export type ContextPart = { readonly [SPAN]?: Span } & (
  | { kind: "ancestors"; step_ids: string[]; tokens: number }
  | { kind: "tier"; tier: number; index: number; step_ids: string[]; cites: string[]; tokens: number }
  | { kind: "elided"; tier: number; index: number; step_ids: string[]; reason: string; tokens: number }
  | { kind: "pinned"; step_ids: string[]; tokens: number }
  | { kind: "verbatim"; step_ids: string[]; tokens: number }
);

export interface BuiltContext {
  messages: ChatMessage[];
  tokens: number;
  parts: ContextPart[];
}

export function partSpan(part: ContextPart): Span | undefined {
  const span = part[SPAN];
  return span && { from: span.from, to: span.to };
}

/**
 * A part whose `step_ids` are read from the source when first asked for.
 * buildContext tries many cuts per call and a staircase covers the whole
 * stream: copying every id for each try was most of a call's time at 100k steps.
 */
export function coverRange<P extends { kind: "tier" | "elided" }>(fields: P, made: { src: ContextSource; from: number; to: number }): P & { readonly step_ids: string[] } {
  let ids: string[] | undefined;
  const covered = {
    ...fields,
    get step_ids() {
      return (ids ??= made.src.ids(made.from, made.to));
    },
  };
  // What the part was made of stands for its span (partSpan copies the two positions out): one object less per part, and a part is made far more often than its span is read.
  Object.defineProperty(covered, SPAN, { value: made });
  return covered;
}

const id8 = (id: string | undefined) => (id ?? "").slice(0, 8);

/**
 * The texts that stand for steps not shown verbatim. One place, because the
 * inspector's replay (replay.ts) must rebuild them byte for byte.
 */
export const notes = {
  /** The first summary of a context says how to read a step; saying it again in each of a staircase's dozen summaries told the model nothing new. */
  summary: (count: number, first: string | undefined, last: string | undefined, tier: number, s: Summary, hint: boolean) =>
    `[My summary of ${count} steps, ${id8(first)}…${id8(last)} (tier ${tier})${s.cites.length ? `; it cites ${s.cites.map(id8).join(", ")}` : ""}.${hint ? " `traj show <id>` reads any step." : ""}]\n${s.content}`,
  elided: (count: number, first: string | undefined, last: string | undefined, reason: string) =>
    `[${count} steps, ${id8(first)}…${id8(last)}, not shown: ${reason}. \`traj show\` and \`traj search\` reach them.]`,
  before: (count: number) => `[${count} earlier steps not shown (not summarized yet). \`traj tail -n N\`, \`traj search\` and \`traj show\` reach them.]`,
  fold: (count: number) => `[${count} older steps not shown: over the token budget. \`traj show\` and \`traj search\` reach them.]`,
};

/** Join consecutive messages of one role, open and close with the user: what every provider accepts. */
export function joinMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (!m.content) continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else out.push({ ...m });
  }
  if (out[0]?.role !== "user") out.unshift({ role: "user", content: "[the trajectory so far]" });
  if (out[out.length - 1]?.role !== "user") out.push({ role: "user", content: "[continue]" });
  return out;
}
