// The network as a mind's permissions allow it: only URLs under an allowed
// prefix are fetched, redirects are not followed (they could leave the list),
// and responses are capped.
import { urlAllowed } from "../trajectory/permissions";
import { FIXED_LIMITS } from "./limits";
import type { NetPort } from "./ports";

export type FetchFn = (url: string, init: { signal: AbortSignal; redirect: "error" }) => Promise<Response>;

export function allowListNet(allow: readonly string[], fetchFn: FetchFn | undefined): NetPort {
  return {
    async fetchText(url, signal) {
      if (allow.length === 0) return { ok: false, error: "network is off for this mind (its human can allow URL prefixes in Settings)" };
      if (!urlAllowed(url, allow)) return { ok: false, error: `network: ${url} is not in this mind's allow-list (${allow.join(", ")})` };
      if (!fetchFn) return { ok: false, error: "network: no network here" };
      try {
        const res = await fetchFn(url, { signal, redirect: "error" });
        const text = await res.text();
        if (new TextEncoder().encode(text).length > FIXED_LIMITS.maxFetchBytes) return { ok: false, error: `network: the response is over ${FIXED_LIMITS.maxFetchBytes} bytes` };
        if (!res.ok) return { ok: false, error: `network: HTTP ${res.status} from ${url}` };
        return { ok: true, status: res.status, text };
      } catch (e) {
        return { ok: false, error: `network: ${url} could not be fetched (${e instanceof Error ? e.message : String(e)})` };
      }
    },
  };
}
