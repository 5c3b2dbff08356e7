// The four providers reached through their own AI SDK code, each against the
// FAKE of its wire format (test/fixtures/providers/), with what the mind must
// say for each failure written out here, as the README's table promises it.
import type { ModelSettings } from "../../../lib/mind/settings/model";
import type { FakeProvider, SeenRequest } from "../../fixtures/providers/fake-provider";
import { ANTHROPIC_MALFORMED, startFakeAnthropic } from "../../fixtures/providers/anthropic";
import { GOOGLE_MALFORMED, startFakeGoogle } from "../../fixtures/providers/google";
import { OPENAI_MALFORMED, startFakeOpenAI } from "../../fixtures/providers/openai";
import { OPENROUTER_MALFORMED, startFakeOpenRouter } from "../../fixtures/providers/openrouter";

type Body = Record<string, unknown> & { messages?: { role: string; content: unknown }[] };

export interface WireCase {
  provider: "openai" | "anthropic" | "google" | "openrouter";
  start: () => Promise<FakeProvider>;
  model: string;
  /** Where the call goes, after the base URL. */
  callPath: string;
  /** The key as the request carried it, and the instructions' text from where its body put them. */
  sent(req: SeenRequest): { key: string | undefined; instructions: unknown };
  /** What the provider says, as the error step quotes it. */
  says: {
    rateLimited: string;
    /** The status, and the provider's words as the error step ends them (with a full stop). */
    keyRefused: { status: number; message: string };
    overloaded: { status: number; message: string };
    /** An error event inside a stream that has begun; Gemini documents none. */
    errorEvent?: string;
  };
  /** The event that is not JSON, as the fake sends it. */
  malformed: string;
  /** Whether the provider streams reasoning text at all (OpenAI's Chat Completions only counts its tokens). */
  streamsReasoning: boolean;
}

export const KEY = "fake-key-wire";

export const settingsFor = (c: WireCase, fake: FakeProvider): ModelSettings => ({ provider: c.provider, model: c.model, apiKey: KEY, baseURL: fake.url });

const bearer = (req: SeenRequest) => req.headers.authorization?.replace(/^Bearer /, "");
/** Anthropic's `system`, Gemini's `systemInstruction.parts` and OpenRouter's system content are lists of text parts; OpenAI's is a string. */
const textOf = (parts: unknown) => (Array.isArray(parts) ? parts.map((p: { text?: unknown }) => p.text).join("") : parts);
const systemMessage = (req: SeenRequest) => textOf((req.body as Body).messages?.find((m) => m.role === "system")?.content);

export const WIRE_CASES: WireCase[] = [
  {
    provider: "openai",
    start: startFakeOpenAI,
    model: "gpt-4o-mini",
    callPath: "/chat/completions",
    sent: (req) => ({ key: bearer(req), instructions: systemMessage(req) }),
    says: {
      rateLimited: "Rate limit reached for gpt-fake in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1.",
      keyRefused: { status: 401, message: "Incorrect API key provided: fake-key***. You can find your API key at https://platform.openai.com/account/api-keys." },
      overloaded: { status: 503, message: "The engine is currently overloaded, please try again later" },
      errorEvent: "(server_error): The server had an error while processing your request. Sorry about that!",
    },
    malformed: OPENAI_MALFORMED,
    streamsReasoning: false,
  },
  {
    provider: "anthropic",
    start: startFakeAnthropic,
    model: "claude-sonnet-4-5",
    callPath: "/messages",
    sent: (req) => ({ key: req.headers["x-api-key"] as string | undefined, instructions: textOf((req.body as Body).system) }),
    says: {
      rateLimited: "This request would exceed the rate limit for your organization of 50 requests per minute.",
      keyRefused: { status: 401, message: "invalid x-api-key." },
      overloaded: { status: 529, message: "Overloaded" },
      errorEvent: "(overloaded_error): Overloaded",
    },
    malformed: ANTHROPIC_MALFORMED,
    streamsReasoning: true,
  },
  {
    provider: "google",
    start: startFakeGoogle,
    model: "gemini-2.5-flash",
    callPath: "/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    sent: (req) => ({ key: req.headers["x-goog-api-key"] as string | undefined, instructions: textOf((req.body as Body & { systemInstruction?: { parts?: unknown } }).systemInstruction?.parts) }),
    says: {
      rateLimited: "You exceeded your current quota, please check your plan and billing details.",
      keyRefused: { status: 400, message: "API key not valid. Please pass a valid API key." },
      overloaded: { status: 503, message: "The model is overloaded. Please try again later." },
    },
    malformed: GOOGLE_MALFORMED,
    streamsReasoning: true,
  },
  {
    provider: "openrouter",
    start: startFakeOpenRouter,
    model: "anthropic/claude-sonnet-4.5",
    callPath: "/chat/completions",
    sent: (req) => ({ key: bearer(req), instructions: systemMessage(req) }),
    says: {
      rateLimited: "Rate limit exceeded: free-models-per-min.",
      keyRefused: { status: 401, message: "User not found." },
      // The provider puts the upstream's name and its own words first.
      overloaded: { status: 503, message: "[Anthropic] Overloaded" },
      errorEvent: "(server_error): Provider disconnected unexpectedly",
    },
    malformed: OPENROUTER_MALFORMED,
    streamsReasoning: true,
  },
];
