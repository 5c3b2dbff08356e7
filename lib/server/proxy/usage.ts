import "server-only";
// GET /api/llm/v1/usage: what a client has spent, as OpenRouter's key
// endpoint tells it, so a client can see how near its caps it is before a
// 429 says so. With the host's admin token, also the whole proxy's day:
// settled, still held, and how many calls overran their hold. The money is
// the ledger's (settled micro-dollars), never recomputed here.
import { tokenClientId, bearsToken } from "./identity";
import { errorResponse, withCookie } from "./http";
import { who, type ProxyDeps } from "./routes";

export async function handleUsage(request: Request, deps: Pick<ProxyDeps, "config" | "ledger" | "cookieSecret">): Promise<Response> {
  const { config, ledger } = deps;
  // The admin token is not a client (it cannot spend): its own client view is all zeros.
  const admin = bearsToken(request, config.adminToken);
  const caller = admin ? { ok: true as const, clientId: tokenClientId(config.adminToken!), setCookie: undefined } : await who(request, deps);
  if (!caller.ok) return caller.response;
  let report;
  try {
    report = await ledger.report(caller.clientId);
  } catch {
    return errorResponse(503, "ledger_unavailable", "the spend ledger is unavailable, so spend cannot be read; try again shortly");
  }
  const body = {
    client: { hour_usd: report.client.hourUsd, day_usd: report.client.dayUsd, cap_hour_usd: config.caps.clientHourUsd, cap_day_usd: config.caps.clientDayUsd },
    resets_at: { hour: report.resetsAt.hour.toISOString(), day: report.resetsAt.day.toISOString() },
    ...(admin && { global: { day_usd: report.global.dayUsd, cap_day_usd: config.caps.globalDayUsd, pending_usd: report.global.pendingUsd, overruns: report.global.overruns } }),
  };
  return withCookie(Response.json(body, { headers: { "Cache-Control": "no-store" } }), caller.setCookie);
}
