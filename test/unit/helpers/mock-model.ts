// The model side of lib/mind tests: MockLanguageModelV4 (ai/test) streaming
// scripted replies, wrapped by the REAL modelPort (lib/llm/complete.ts).
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { modelPort } from "../../../lib/llm/complete";
import type { ModelPort } from "../../../lib/mind/ports";

export interface Usage {
  input: number;
  output: number;
}

/** One scripted model turn. */
export type Turn =
  | string
  | { text: string; usage?: Usage; chunk?: number }
  /** A stream that carries an `error` part (after `text`, if any). */
  | { streamError: unknown; text?: string }
  /** doStream itself throws. */
  | { throws: unknown };

export function usageOf(u: Usage) {
  return {
    inputTokens: { total: u.input, noCache: u.input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: u.output, text: u.output, reasoning: undefined },
  };
}

function textParts(text: string, chunk: number): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "text-start", id: "t1" }];
  for (let i = 0; i < text.length; i += chunk) parts.push({ type: "text-delta", id: "t1", delta: text.slice(i, i + chunk) });
  parts.push({ type: "text-end", id: "t1" });
  return parts;
}

/** The stream a model sends for `turn` (no timers: delays are null). */
export function streamFor(turn: Exclude<Turn, { throws: unknown }>) {
  const t = typeof turn === "string" ? { text: turn } : turn;
  const parts: LanguageModelV4StreamPart[] =
    "streamError" in t
      ? [...(t.text ? textParts(t.text, 7) : []), { type: "error", error: t.streamError }]
      : [
          ...textParts(t.text, t.chunk ?? 7),
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usageOf(t.usage ?? { input: 10, output: 5 }) },
        ];
  return { stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) };
}

export interface ScriptedModel {
  mock: MockLanguageModelV4;
  port: ModelPort;
  /** The prompts the model was called with, as role + plain text. */
  calls(): { role: string; text: string }[][];
}

/**
 * A model whose n-th call (0-based) answers `script(n, options)`; an array
 * script answers in order and then repeats its last turn.
 */
export function scriptedModel(script: Turn[] | ((n: number, options: LanguageModelV4CallOptions) => Turn | Promise<Turn>), name = "mock/scripted"): ScriptedModel {
  let n = 0;
  const mock = new MockLanguageModelV4({
    doStream: async (options) => {
      const i = n++;
      const turn = typeof script === "function" ? await script(i, options) : script[Math.min(i, script.length - 1)];
      if (turn === undefined) throw new Error("empty script");
      if (typeof turn === "object" && "throws" in turn) throw turn.throws;
      return streamFor(turn);
    },
  });
  return {
    mock,
    port: modelPort(mock, name),
    calls: () => mock.doStreamCalls.map((c) => promptText(c.prompt)),
  };
}

/** A language-model prompt as role + text, parts joined. */
export function promptText(prompt: LanguageModelV4CallOptions["prompt"]): { role: string; text: string }[] {
  return prompt.map((m) => ({
    role: m.role,
    text: typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : `[${p.type}]`)).join(""),
  }));
}
