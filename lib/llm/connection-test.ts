// "Test connection" in the new-mind form: one tiny real call with the model
// as the person set it up, before the mind exists, so a wrong key, model
// name, URL or an unreachable server shows at once, with what to do about
// it, rather than as the mind's first error step. It costs a few tokens.
//
// It takes a LanguageModel (built by createModel, the same factory the
// worker uses), so the call goes where the mind's calls will go: straight to
// the provider from the tab, or through the host's proxy.
import { APICallError, generateText, RetryError, type LanguageModel } from "ai";
import { describeModelError, keyRefused, retryAfterSeconds } from "./model-errors";
import { createModel, type ModelEnv } from "./model";
import { settingsProblems } from "./settings";
import { type ModelSettings } from "../mind/settings/model";
import { spendCapPause } from "./spend-cap";

/** A person waits for the answer: long enough for a cold local model, short enough not to look hung. */
export const CONNECTION_TEST_TIMEOUT_MS = 20_000;

/** Room for a one-word answer, and for a reasoning model to think a little first. */
const MAX_OUTPUT_TOKENS = 32;

const PROMPT = "This is a connection test. Reply with the single word: ok";

/** Why a test failed, for the form to colour and for tests to tell apart. */
export type ConnectionFailure = "settings" | "auth" | "not-found" | "rate-limit" | "spend-cap" | "timeout" | "unreachable" | "http" | "other";

export type ConnectionTestResult =
  | { ok: true; /** What the model said (cut to a line). */ answer: string; ms: number }
  | { ok: false; failure: ConnectionFailure; error: string; ms: number };

export interface ConnectionTestOptions {
  timeoutMs?: number;
  /** Milliseconds, for the time it took (performance.now by default). */
  now?: () => number;
  signal?: AbortSignal;
}

/** One call to `model`; never throws: every failure comes back as a result with a readable message. */
export async function runConnectionTest(model: LanguageModel, opts: ConnectionTestOptions = {}): Promise<ConnectionTestResult> {
  const now = opts.now ?? (() => performance.now());
  const timeoutMs = opts.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const started = now();
  // A provider that ignores the signal must not leave the button spinning: the wait races it.
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const result = await Promise.race([generateText({ model, prompt: PROMPT, maxOutputTokens: MAX_OUTPUT_TOKENS, maxRetries: 0, abortSignal: signal }), stopped]);
    return { ok: true, answer: oneLine(result.text), ms: Math.round(now() - started) };
  } catch (e) {
    const ms = Math.round(now() - started);
    if (timeout.aborted) return { ok: false, failure: "timeout", error: `No answer within ${timeoutMs / 1000} s: the server may be overloaded, still loading the model, or not answering.`, ms };
    return { ok: false, ...classify(e), ms };
  }
}

/** The form's entry point: the settings as typed, checked, built into a model and tested. */
export async function testModelSettings(settings: ModelSettings, env: ModelEnv = {}, opts: ConnectionTestOptions = {}): Promise<ConnectionTestResult> {
  const problems = settingsProblems(settings);
  if (!settings.model.trim()) problems.unshift("Give a model name first.");
  if (problems.length) return { ok: false, failure: "settings", error: problems.join(" "), ms: 0 };
  let model: LanguageModel;
  try {
    model = await createModel(settings, env);
  } catch (e) {
    return { ok: false, failure: "settings", error: e instanceof Error ? e.message : String(e), ms: 0 };
  }
  return runConnectionTest(model, opts);
}

function classify(e: unknown): { failure: ConnectionFailure; error: string } {
  const err = RetryError.isInstance(e) ? e.lastError : e;
  const said = asSentence(describeModelError(err));
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === 401 || status === 403 || keyRefused(err)) return { failure: "auth", error: `The key was refused: ${said} Check the API key (and that it may use this model).` };
    if (status === 404) return { failure: "not-found", error: `Not found: ${said} Check the model name and the base URL.` };
    if (status === 429) {
      const pause = spendCapPause(err);
      if (pause) return { failure: "spend-cap", error: `The host's proxy is at its ${pause.cap.replace(/_/g, " ")} spend cap ($${pause.limitUsd}) until ${new Date(pause.resetsAt).toISOString()}.` };
      const wait = retryAfterSeconds(err);
      return { failure: "rate-limit", error: `Rate limited: ${said}${wait !== undefined ? ` The server asks to wait ${wait} s.` : ""} The key works, but it is at its limit for now.` };
    }
    if (status === undefined) return { failure: "unreachable", error: `Could not reach the model: ${said} Is the server running, is the URL right, and does it allow this page's origin (CORS)?` };
    return { failure: "http", error: said };
  }
  // In a browser a refused or blocked connection is a bare TypeError from fetch (describeModelError says so).
  if (err instanceof TypeError) return { failure: "unreachable", error: said };
  return { failure: "other", error: said };
}

/** The provider's message ends a sentence, so the advice after it reads as one. */
function asSentence(text: string): string {
  const t = text.trim();
  return /[.!?)]$/.test(t) ? t : `${t}.`;
}

function oneLine(text: string): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 80)} …` : line;
}
