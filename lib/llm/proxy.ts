// Does this host run the spend-capped proxy, and with which models at which
// prices? Its `GET /api/llm/v1/models` answers 200 with the list when it is
// configured and 404 when it is not.
import * as z from "zod";
import type { Price } from "../mind/settings/model";

/** Where the host's proxy answers, under the app's origin. */
export const PROXY_PATH = "/api/llm/v1";

const ModelsResponse = z.object({
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      pricing: z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).optional(),
    }),
  ),
});

export interface ProxyModel {
  id: string;
  /** USD per million tokens, as the proxy charges them. */
  price?: Price;
}

export type ProxyOffer = { available: true; models: ProxyModel[] } | { available: false; reason: string };

export async function discoverProxy(origin: string, fetchFn: typeof globalThis.fetch = globalThis.fetch): Promise<ProxyOffer> {
  let res: Response;
  try {
    res = await fetchFn(`${origin.replace(/\/+$/, "")}${PROXY_PATH}/models`, { headers: { accept: "application/json" } });
  } catch (e) {
    return { available: false, reason: `the proxy could not be reached (${e instanceof Error ? e.message : String(e)})` };
  }
  if (res.status === 404) return { available: false, reason: "this host has no proxy configured" };
  if (!res.ok) return { available: false, reason: `the proxy answered HTTP ${res.status}` };
  const parsed = ModelsResponse.safeParse(await res.json().catch(() => null));
  if (!parsed.success) return { available: false, reason: "the proxy's model list did not parse" };
  return { available: true, models: parsed.data.data.map((m) => ({ id: m.id, ...(m.pricing ? { price: { input: m.pricing.input, output: m.pricing.output } } : {}) })) };
}
