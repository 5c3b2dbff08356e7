import "server-only";
// An incoming chat completion request: read within a size limit, parsed with
// zod, checked against the models the proxy offers. Everything refused here
// is refused before any reservation, so it costs nothing.
import * as z from "zod";
import { errorResponse } from "./http";
import { readCapped } from "../http/body";

/** Requests larger than this are refused with 413 (a long context is well under it). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

const Message = z.looseObject({ role: z.string().min(1) });

/** The fields the proxy reads; every other field is forwarded as sent. */
export const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  // More than one choice multiplies the output; the worst case is computed for one.
  n: z.literal(1).optional(),
  tools: z.array(z.unknown()).optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export type ParsedRequest = { ok: true; body: ChatRequest } | { ok: false; response: Response };

const refuse = (status: number, type: "invalid_request" | "request_too_large", message: string): ParsedRequest => ({
  ok: false,
  response: errorResponse(status, type, message),
});

/** The body as text, or a refusal once it passes `limit` bytes (read no further than that). */
async function readLimited(request: Request, limit: number): Promise<string | "too_large"> {
  const body = await readCapped(request, limit);
  return body === "too_large" ? body : body.toString("utf8");
}

export async function parseChatRequest(request: Request, models: readonly string[], limit = MAX_BODY_BYTES): Promise<ParsedRequest> {
  let text: string | "too_large";
  try {
    text = await readLimited(request, limit);
  } catch {
    return refuse(400, "invalid_request", "could not read the request body");
  }
  if (text === "too_large") return refuse(413, "request_too_large", `request body over ${limit} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return refuse(400, "invalid_request", "the request body is not JSON");
  }
  const parsed = ChatRequest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse(400, "invalid_request", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
  }
  if (!models.includes(parsed.data.model)) {
    return refuse(400, "invalid_request", `model '${parsed.data.model.slice(0, 100)}' is not offered by this proxy (offered: ${models.join(", ")})`);
  }
  return { ok: true, body: parsed.data };
}
