import "server-only";
// Token counts for the proxy's arithmetic: the input estimate a reservation is
// made on, and the output of a call cut short (no usage reported) counted from
// what was streamed. Counted with the mind's own tokenizer (lib/context/tokens).
import { MESSAGE_OVERHEAD, TokenCounter } from "../../context/tokens";
import type { ChatRequest } from "./request";

const counter = new TokenCounter();

/** The tokenizer is OpenAI's; other vocabularies differ by up to about 15%, so the reserved estimate carries that margin. */
export const INPUT_MARGIN = 1.15;

/** Text parts as text; anything else (images, audio, tool calls) as its JSON, which over-counts rather than under-counts. */
function contentText(content: unknown): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: unknown) => (typeof p === "object" && p !== null && "text" in p && typeof p.text === "string" ? p.text : JSON.stringify(p))).join("\n");
  return JSON.stringify(content);
}

export function countText(text: string): number {
  return counter.count(text);
}

/** The input tokens of a request as the tokenizer counts them (no margin): messages, their overhead, tool definitions. */
export function inputTokens(body: ChatRequest): number {
  let n = 3; // the reply's priming tokens
  for (const m of body.messages) {
    const { role, content, ...rest } = m;
    n += MESSAGE_OVERHEAD + counter.count(role) + counter.count(contentText(content));
    // tool_calls, name, tool_call_id …
    if (Object.keys(rest).length) n += counter.count(JSON.stringify(rest));
  }
  if (body.tools?.length) n += counter.count(JSON.stringify(body.tools));
  return n;
}

/** The input estimate a reservation is made on. */
export const reservedInputTokens = (exact: number) => Math.ceil(exact * INPUT_MARGIN);
