import "server-only";
// The spend-capped proxy's two endpoints, as functions of a Request and their
// dependencies (configuration, ledger, cookie secret), so tests call them
// with a real ledger and a real upstream. Top to bottom: who is calling, is
// the request sound, what is the most it can cost, reserve that, forward,
// settle on what it really cost.
import { costUsd, maxOutputWithin, worstCaseUsd, type TokenUsage } from "../../llm/price";
import { identify, type Identity } from "./identity";
import type { Ledger, Reservation } from "../ledger/ledger";
import { priceOf, type ProxyConfig } from "./config";
import { forward, type Outcome } from "./forward";
import { errorResponse, keyScrubber, withCookie } from "./http";
import { parseChatRequest } from "./request";
import { inputTokens, reservedInputTokens } from "./tokens";

export interface ProxyDeps {
  config: ProxyConfig;
  ledger: Ledger;
  /** The key that signs anonymous client cookies (kept in SQL). */
  cookieSecret: () => Promise<Buffer>;
  /** Where the proxy's own log lines go; never given request headers or the key. */
  log?: (line: string) => void;
  now?: () => Date;
  /** Told after each settlement is recorded (what tests and metrics wait on). */
  onSettled?: (s: Settlement) => void;
}

export interface Settlement {
  reservationId: string;
  clientId: string;
  model: string;
  usd: number;
  usage: TokenUsage;
  outcome: Outcome;
}

/** The output allowance when a request names none; still clamped to the request cap. */
export const DEFAULT_MAX_TOKENS = 4096;
/** Kept below the request cap so that rounding to the ledger's units cannot tip a fitted worst case over it. */
const CAP_ROUNDING_USD = 1e-6;

const ledgerDown = (what: string) =>
  errorResponse(503, "ledger_unavailable", `the spend ledger is unavailable (${what}), so no call is made; try again shortly`);

type Who = { ok: true; clientId: string; setCookie?: string } | { ok: false; response: Response };

async function who(request: Request, deps: Pick<ProxyDeps, "config" | "cookieSecret">): Promise<Who> {
  let id: Identity;
  try {
    id = await identify(request, deps.config.tokens, deps.cookieSecret);
  } catch {
    return { ok: false, response: ledgerDown("could not read the client-cookie secret") };
  }
  if (!id.ok) return { ok: false, response: errorResponse(401, "unauthorized", id.message) };
  return id;
}

const usd = (n: number) => `$${Number(n.toPrecision(6))}`;
const CAP_LABEL = { global_day: "the proxy's daily cap", client_hour: "your hourly cap", client_day: "your daily cap", request: "the per-request cap" } as const;

export function capResponse(refusal: Extract<Reservation, { ok: false }>, now: Date): Response {
  const retryS = Math.max(0, Math.ceil((refusal.resetsAt.getTime() - now.getTime()) / 1000));
  const message =
    refusal.cap === "request"
      ? `this request could cost more than ${CAP_LABEL.request} of ${usd(refusal.limitUsd)} even with the smallest answer; shorten its input`
      : `spend cap reached: ${CAP_LABEL[refusal.cap]} of ${usd(refusal.limitUsd)} (spent ${usd(refusal.spentUsd)}); it resets at ${refusal.resetsAt.toISOString()}`;
  return errorResponse(429, "spend_cap", message, {
    extra: { cap: refusal.cap, limit_usd: refusal.limitUsd, resets_at: refusal.resetsAt.toISOString() },
    headers: { "Retry-After": String(retryS) },
  });
}

export async function handleChatCompletions(request: Request, deps: ProxyDeps): Promise<Response> {
  const { config, ledger } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? ((line: string) => console.error(line));
  const scrub = keyScrubber(config.apiKey);

  const caller = await who(request, deps);
  if (!caller.ok) return caller.response;
  const reply = (res: Response) => withCookie(res, caller.setCookie);

  const parsed = await parseChatRequest(request, config.models);
  if (!parsed.ok) return reply(parsed.response);
  const body = parsed.body;
  const price = priceOf(config, body.model);
  if (!price) return reply(errorResponse(400, "invalid_request", `model '${body.model}' has no price`));

  const counted = inputTokens(body);
  const reservedIn = reservedInputTokens(counted);
  const fits = maxOutputWithin(price, reservedIn, config.caps.requestUsd - CAP_ROUNDING_USD);
  if (fits < 1) return reply(capResponse({ ok: false, cap: "request", limitUsd: config.caps.requestUsd, spentUsd: 0, resetsAt: now() }, now()));
  const asked = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS;
  const maxOut = Math.min(asked, fits);
  const worst = worstCaseUsd(price, reservedIn, maxOut);

  let reservation: Reservation;
  try {
    reservation = await ledger.reserve(caller.clientId, worst, { model: body.model });
  } catch (e) {
    log(`llm proxy: reserve failed: ${scrub((e as Error).message)}`);
    return reply(ledgerDown("could not reserve"));
  }
  if (!reservation.ok) return reply(capResponse(reservation, now()));
  const reservationId = reservation.id;

  const settle = (usage: TokenUsage, outcome: Outcome) => {
    const actualUsd = costUsd(price, usage);
    // After the answer has gone out: PGlite runs in this thread, and the client should not wait for the bookkeeping.
    // A settle that fails (or a process that dies first) leaves the hold, which expireStale settles at its worst case: the caps stay safe.
    setImmediate(() => {
      ledger.settle(reservationId, actualUsd, usage).then(
        () => deps.onSettled?.({ reservationId, clientId: caller.clientId, model: body.model, usd: actualUsd, usage, outcome }),
        (e: unknown) => log(`llm proxy: settle of ${reservationId} (${outcome}) failed: ${scrub((e as Error).message)}`),
      );
    });
  };

  // Always send the (clamped) allowance, in the field the client used, so the worst case really bounds the call.
  const { max_tokens: _mt, max_completion_tokens: _mct, ...rest } = body;
  const allowance = body.max_completion_tokens !== undefined ? { max_completion_tokens: maxOut } : { max_tokens: maxOut };
  const stream = body.stream === true;
  const upstreamBody: Record<string, unknown> = { ...rest, ...allowance };
  if (stream) upstreamBody.stream_options = { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true };

  return reply(
    await forward({ upstreamUrl: config.upstreamUrl, apiKey: config.apiKey, body: upstreamBody, stream, signal: request.signal, inputTokens: counted, settle, scrub, log }),
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export async function handleModels(request: Request, deps: Pick<ProxyDeps, "config" | "cookieSecret">): Promise<Response> {
  const caller = await who(request, deps);
  if (!caller.ok) return caller.response;
  const data = deps.config.models.map((id) => {
    const p = deps.config.prices[id];
    return { id, object: "model", owned_by: "reverie-proxy", pricing: { input: p?.input ?? 0, output: p?.output ?? 0 } };
  });
  return withCookie(Response.json({ object: "list", data }, { headers: { "Cache-Control": "no-store" } }), caller.setCookie);
}
