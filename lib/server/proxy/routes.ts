import "server-only";
// The spend-capped proxy's two endpoints, as functions of a Request and their
// dependencies (configuration, ledger, cookie secret), so tests call them
// with a real ledger and a real upstream. Top to bottom: who is calling, is
// the request sound, what is the most it can cost, reserve that (clamping the
// answer's allowance to what the caps have left), forward, settle on what it
// really cost (settlement.ts), never above the hold.
import { maxOutputWithin, worstCaseUsd, type TokenUsage } from "../../llm/price";
import { type Price } from "../../mind/settings/model";
import { identify, type Identity } from "./identity";
import type { Ledger, Reservation } from "../ledger/ledger";
import { mayReasonUnseen, priceOf, type ProxyConfig } from "./config";
import { forward } from "./forward";
import { errorResponse, keyScrubber, withCookie } from "./http";
import { parseChatRequest } from "./request";
import { asksForReasoning, settleAmount, type Basis, type CallEnd, type Margins, type Outcome } from "./settlement";
import { inputTokens, reservedInputTokens } from "./tokens";

export interface ProxyDeps {
  config: ProxyConfig;
  ledger: Ledger;
  /** Each model's margin on the worst case, grown by overruns (process-wide). */
  margins: Margins;
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
  basis: Basis;
  /** The upstream reported more than was held; settled at the hold. */
  overrun: boolean;
}

/** The output allowance when a request names none; still clamped to the request cap. */
export const DEFAULT_MAX_TOKENS = 4096;
/** Kept below the request cap so that rounding to the ledger's units cannot tip a fitted worst case over it. */
const CAP_ROUNDING_USD = 1e-6;

const ledgerDown = (what: string) =>
  errorResponse(503, "ledger_unavailable", `the spend ledger is unavailable (${what}), so no call is made; try again shortly`);

type Who = { ok: true; clientId: string; setCookie?: string } | { ok: false; response: Response };

export async function who(request: Request, deps: Pick<ProxyDeps, "config" | "cookieSecret">): Promise<Who> {
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

/**
 * `as`: a caller inside this server (the runner, calling for a mind it hosts)
 * whose client id the server gave itself; it is under the same caps as any
 * client. Requests from outside are identified by their token or cookie.
 */
export async function handleChatCompletions(request: Request, deps: ProxyDeps, as?: { clientId: string }): Promise<Response> {
  const { config, ledger } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? ((line: string) => console.error(line));
  const scrub = keyScrubber(config.apiKey);

  const caller: Who = as ? { ok: true, clientId: as.clientId } : await who(request, deps);
  if (!caller.ok) return caller.response;
  const reply = (res: Response) => withCookie(res, caller.setCookie);

  const parsed = await parseChatRequest(request, config.models);
  if (!parsed.ok) return reply(parsed.response);
  const body = parsed.body;
  const price = priceOf(config, body.model);
  if (!price) return reply(errorResponse(400, "invalid_request", `model '${body.model}' has no price`));

  const margin = deps.margins.of(body.model);
  const counted = inputTokens(body);
  const reservedIn = reservedInputTokens(counted);
  const allowance = (capUsd: number) => maxOutputWithin(price, reservedIn, (capUsd - CAP_ROUNDING_USD) / margin);
  const worstOf = (maxOut: number) => worstCaseUsd(price, reservedIn, maxOut) * margin;
  if (allowance(config.caps.requestUsd) < 1) return reply(capResponse({ ok: false, cap: "request", limitUsd: config.caps.requestUsd, spentUsd: 0, resetsAt: now() }, now()));
  const asked = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS;
  let maxOut = Math.min(asked, allowance(config.caps.requestUsd));

  let reservation: Reservation;
  try {
    reservation = await ledger.reserve(caller.clientId, worstOf(maxOut), { model: body.model });
    // The caps cannot hold this answer's whole allowance, but a shorter one fits: send that (the worst case must fit).
    const clamped = !reservation.ok && reservation.headroomUsd !== undefined ? allowance(reservation.headroomUsd) : 0;
    if (clamped >= 1 && clamped < maxOut) {
      maxOut = clamped;
      reservation = await ledger.reserve(caller.clientId, worstOf(maxOut), { model: body.model });
    }
  } catch (e) {
    log(`llm proxy: reserve failed: ${scrub(e instanceof Error ? e.message : String(e))}`);
    return reply(ledgerDown("could not reserve"));
  }
  if (!reservation.ok) return reply(capResponse(reservation, now()));
  const held = reservation;
  const mayReason = mayReasonUnseen(config, body.model) || asksForReasoning(body);

  const settle = (end: CallEnd) => {
    const amount = settleAmount(end, { price, heldUsd: held.usd, inputTokens: counted, margin, mayReason });
    if (amount.overrun) overran(deps, body.model, price, amount.reportedUsd, held.usd, amount.usage, log);
    const settledUsd = Math.min(amount.reportedUsd, held.usd);
    // After the answer has gone out: PGlite runs in this thread, and the client should not wait for the bookkeeping.
    // A settle that fails (or a process that dies first) leaves the hold, which expireStale settles at its worst case: the caps stay safe.
    setImmediate(() => {
      ledger.settle(held.id, amount.reportedUsd, amount.usage).then(
        () => deps.onSettled?.({ reservationId: held.id, clientId: caller.clientId, model: body.model, usd: settledUsd, usage: amount.usage, outcome: end.outcome, basis: amount.basis, overrun: amount.overrun }),
        (e: unknown) => log(`llm proxy: settle of ${held.id} (${end.outcome}) failed: ${scrub(e instanceof Error ? e.message : String(e))}`),
      );
    });
  };

  // Always send the (clamped) allowance, in the field the client used, so the worst case really bounds the call.
  const { max_tokens: _mt, max_completion_tokens: _mct, ...rest } = body;
  const limit = body.max_completion_tokens !== undefined ? { max_completion_tokens: maxOut } : { max_tokens: maxOut };
  const stream = body.stream === true;
  const upstreamBody: Record<string, unknown> = { ...rest, ...limit };
  if (stream) upstreamBody.stream_options = { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true };

  return reply(
    await forward({
      upstreamUrl: config.upstreamUrl,
      apiKey: config.apiKey,
      body: upstreamBody,
      stream,
      signal: request.signal,
      settle,
      log,
      timeoutMs: config.upstreamTimeoutMs,
      showUpstreamErrors: config.showUpstreamErrors,
    }),
  );
}

/** An upstream reported more than the hold: say so with the figures, and hold more for this model from now on. */
function overran(deps: ProxyDeps, model: string, price: Price, reportedUsd: number, heldUsd: number, usage: TokenUsage, log: (line: string) => void) {
  const margin = deps.margins.grow(model, reportedUsd, heldUsd);
  log(
    `llm proxy: overrun: ${model} reported ${usage.inputTokens} input + ${usage.outputTokens} output tokens = ${usd(reportedUsd)} ` +
      `(at ${price.input}/${price.output} USD per million), over the ${usd(heldUsd)} held; settled at ${usd(heldUsd)}; its margin is now ×${margin}`,
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
