// What the summarizer asks the model, and how it reads the answer. A block is
// summarized in the mind's own voice (first person), keeping the reasons
// behind its decisions and naming the steps that matter by their 8-hex ids,
// which become the summary's cites. Pure.
import { renderStep } from "../../context/project";
import type { Summary } from "../../context/build";
import type { Step } from "../../trajectory/schema";
import type { ChatMessage } from "../ports";
import { personaText, renderSelf, type SelfTexts } from "../self/self";
import { defaultSelfTexts } from "../self/defaults";

/** A summary longer than this is cut (on a character boundary): a summary is a line or two, not a copy. */
export const MAX_SUMMARY_CHARS = 1500;
/** Each step as the summarizer sees it: enough to tell what happened, cheap enough for one call per block. */
const STEP_CHARS = 600;

const id8 = (id: string) => id.slice(0, 8);

/** Words only the summarizer's instructions hold (a scripted test server can tell its calls apart by them). */
export const SUMMARY_MARK = "writing your own memory";

/** The summarizer's instructions (summarizer.md, which holds SUMMARY_MARK in its words), from a persona and the shipped text. */
export function summaryInstructions(selfName: string, persona: string): string {
  return selfSummaryInstructions(defaultSelfTexts(persona), selfName);
}

/** The summarizer's instructions from the mind's own summarizer.md and persona.md. */
export function selfSummaryInstructions(self: SelfTexts, selfName: string): string {
  return renderSelf(self["summarizer.md"].text, { name: selfName, persona: personaText(self["persona.md"].text) });
}

/** The one message of a tier-0 call: the block's steps, each with its id. */
export function stepsMessage(steps: readonly Step[], selfName: string): ChatMessage[] {
  const lines = steps.map((s) => {
    const m = renderStep(s, selfName);
    const text = (m?.content ?? "").trim();
    const cut = text.length > STEP_CHARS ? `${sliceChars(text, STEP_CHARS)} […]` : text;
    return `[${id8(s.step_id)}] ${m?.role === "assistant" ? "I wrote" : "I saw"}: ${cut}`;
  });
  return [{ role: "user", content: `Summarize these ${steps.length} consecutive steps of mine (${id8(steps[0]?.step_id ?? "")}…${id8(steps[steps.length - 1]?.step_id ?? "")}):\n\n${lines.join("\n\n")}` }];
}

/** The one message of a tier-k call: the summaries of its F children, oldest first. */
export function childrenMessage(children: readonly Summary[], spans: readonly { first: string; last: string }[]): ChatMessage[] {
  const parts = children.map((c, i) => {
    const span = spans[i];
    const cites = c.cites.length ? `; it cites ${c.cites.map((x) => `[${id8(x)}]`).join(" ")}` : "";
    return `Stretch ${i + 1} (${id8(span?.first ?? "")}…${id8(span?.last ?? "")}${cites}):\n${c.content}`;
  });
  return [{ role: "user", content: `Summarize these ${children.length} consecutive summaries of mine into one, keeping the ids that matter:\n\n${parts.join("\n\n")}` }];
}

/** The ids a summary names, resolved against the ids it may cite (a prefix of 8 hex or more that names exactly one). */
export function citesIn(text: string, candidates: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b[0-9a-f]{8}(?:-[0-9a-f]{4}){0,3}(?:-[0-9a-f]{12})?\b/gi)) {
    const prefix = m[0].toLowerCase();
    const hits = candidates.filter((c) => c.toLowerCase().startsWith(prefix));
    const id = hits.length === 1 ? hits[0] : undefined;
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The model's answer as a summary: trimmed and cut to size, or null when there is nothing in it. */
export function cleanSummary(text: string): string | null {
  const t = text.trim();
  if (!t) return null;
  return t.length > MAX_SUMMARY_CHARS ? `${sliceChars(t, MAX_SUMMARY_CHARS)}…` : t;
}

/** The first `n` characters, never ending between the two halves of a surrogate pair. */
function sliceChars(text: string, n: number): string {
  let end = n;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? "")) end--;
  return text.slice(0, end);
}
