import "server-only";
// What an OpenAI-compatible upstream answers, declared once: a whole
// completion, one event of a stream, the usage either carries, and an error
// body. The proxy relays these as they came and reads only money's share of
// them (usage, generated text, reasoning), so the schemas are no stricter
// than the AI SDK's own on the fields it reads (a reply a client would take
// is not refused) and give back what they are given (no transforms, defaults
// or catches): a reply is checked in place, and a rewritten event keeps its
// keys in their order.
// What fails them is malformed; the check says why, as data, and the caller
// relays an error in OpenAI's shape in its place.
import * as z from "zod";
import { compiledOnUse } from "../../trajectory/compiled";

/** A token count: the AI SDK takes a missing or null one; only a whole, non-negative pair is settled on (sse.ts). */
const Count = z.number().nullish();

export const UpstreamUsage = z.looseObject({
  prompt_tokens: Count,
  completion_tokens: Count,
  prompt_tokens_details: z.looseObject({ cached_tokens: Count }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: Count }).nullish(),
});
export type UpstreamUsage = z.infer<typeof UpstreamUsage>;

/** Text, or typed parts (as Mistral sends its reasoning); only text is counted and scrubbed across events. */
const Content = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))], { error: "expected text or a list of parts, each with a type" }).nullish();

const ToolCall = z.looseObject({
  index: z.number().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

/** A choice's message (in a completion) or delta (in a chunk): the text channels the proxy counts and scrubs. */
export const UpstreamPart = z.looseObject({
  content: Content,
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(ToolCall).nullish(),
});
export type UpstreamPart = z.infer<typeof UpstreamPart>;
/** A part's text fields (a tool call's arguments are the other channel). */
export const TEXT_FIELDS = ["content", "reasoning_content", "reasoning"] as const;

/** `index` is whatever was sent: the AI SDK does not read it, so it is no reason to refuse an event. */
const Choice = z.looseObject({ index: z.unknown().optional(), delta: UpstreamPart.nullish(), message: UpstreamPart.nullish() });
export type UpstreamChoice = z.infer<typeof Choice>;

/** One event of a stream. An error event ({"error": …} on an HTTP 200, as OpenRouter sends one) has no choices, and passes as it is. */
export const UpstreamChunk = z.looseObject({ choices: z.array(Choice).nullish(), usage: UpstreamUsage.nullish() });
export type UpstreamChunk = z.infer<typeof UpstreamChunk>;

/** A whole, non-streamed answer: without choices no client can read it. */
export const UpstreamCompletion = UpstreamChunk.extend({ choices: z.array(Choice) });
export type UpstreamCompletion = z.infer<typeof UpstreamCompletion>;

/** An error body: OpenAI's {"error": {"message": …}}, or a bare {"error": "…"}. */
export const UpstreamError = z.looseObject({ error: z.union([z.string(), z.looseObject({ message: z.string() })]) });

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

// Every event of every stream is checked: compiled once used often (lib/trajectory/compiled.ts), a check costs about a µs less.
const chunkSchema = compiledOnUse(UpstreamChunk);
const completionSchema = compiledOnUse(UpstreamCompletion);

/** `value` as `schema` types it, checked in place (each schema here gives back what it is given), or what is wrong with it. */
function check<S extends z.ZodType>(schema: S, value: unknown, fast: S = schema): Checked<z.input<S>> {
  if (z.validate(fast, value)) return { ok: true, value };
  // Only a malformed reply pays for a second pass, by the runtime parser, to say where it is wrong.
  const issue = schema.safeParse(value).error?.issues[0];
  if (!issue) return { ok: false, problem: "not valid" };
  const at = issue.path.map(String).join(".");
  const what = issue.message.replace(/^Invalid input: /, "");
  return { ok: false, problem: at ? `${at}: ${what}` : what };
}

/** One stream event's data, once parsed as JSON. */
export const checkChunk = (json: unknown): Checked<UpstreamChunk> => check(UpstreamChunk, json, chunkSchema());

export type CompletionRead = Checked<UpstreamCompletion> & { upstreamError?: string };

/** A non-streamed answer's body; when it is not a completion but an error body, the upstream's own message too. */
export function readCompletion(text: string): CompletionRead {
  const json = parseJson(text);
  if (!json.ok) return { ok: false, problem: "not JSON" };
  const completion = check(UpstreamCompletion, json.value, completionSchema());
  if (completion.ok) return completion;
  const error = errorMessageOf(json.value);
  return error === undefined ? completion : { ...completion, upstreamError: error };
}

/** The message of an error body, if the text is one. */
export function errorMessageIn(text: string): string | undefined {
  const json = parseJson(text);
  return json.ok ? errorMessageOf(json.value) : undefined;
}

function errorMessageOf(json: unknown): string | undefined {
  const body = check(UpstreamError, json);
  if (!body.ok) return undefined;
  return typeof body.value.error === "string" ? body.value.error : body.value.error.message;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
