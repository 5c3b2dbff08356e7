// The HTTP calls that move a mind between its homes (this tab and the server
// runner), over the same write token as sync: the lease, the steps another
// home wrote, the runner's offer, keep-alive and halt. Pure over a fetch.
import * as z from "zod";
import { Lease, OwnSteps, RunnerInfo, ServerHome, type KeepAlive } from "../wire";
import { ApiRequestError, blobPath, call, json, type FetchPort } from "./http";

export type LeaseAnswer = { ok: true; lease: Lease } | { ok: false; holder: string; expiresAt: string; handingOver: boolean };

const Leased = z.object({ holder: z.string(), expires_at: z.string(), handing_over: z.boolean().optional() });

export function homeClient(fetch: FetchPort, base = "") {
  const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
  const mindUrl = (mind: string) => `${base}/api/sync/minds/${encodeURIComponent(mind)}`;
  const send = (method: string, url: string, token: string, body: unknown, keepalive = false) =>
    call(fetch, url, { method, headers: auth(token, { "content-type": "application/json" }), body: JSON.stringify(body), ...(keepalive ? { keepalive: true } : {}) });

  return {
    /** Whether the server runs minds while no tab is open (null: it does not). */
    async runner(): Promise<RunnerInfo | null> {
      try {
        return await json(await call(fetch, `${base}/api/runner`), RunnerInfo);
      } catch (e) {
        if (e instanceof ApiRequestError && e.status === 404) return null;
        throw e;
      }
    },
    /** Take the lease (no epoch) or renew it (with one). Held elsewhere: who holds it, and whether a runner was asked to hand it over. */
    async lease(mind: string, token: string, req: { holder: string; epoch?: number; ttl_s?: number }): Promise<LeaseAnswer> {
      try {
        return { ok: true, lease: await json(await send("POST", `${mindUrl(mind)}/lease`, token, req), Lease) };
      } catch (e) {
        if (!(e instanceof ApiRequestError) || e.code !== "leased") throw e;
        const held = Leased.safeParse((e.body as { error?: unknown } | null)?.error);
        return { ok: false, holder: held.success ? held.data.holder : "another home", expiresAt: held.success ? held.data.expires_at : "", handingOver: held.success ? held.data.handing_over === true : false };
      }
    },
    /**
     * Let the lease go (a tab closing: the runner need not wait for it to lapse). `keepalive` lets it outlive the page.
     * `lastStep`: the newest step this home wrote; the server lets the lease go once it holds it (or when it would lapse).
     */
    async release(mind: string, token: string, holder: string, epoch: number, keepalive = false, lastStep?: string): Promise<void> {
      await send("DELETE", `${mindUrl(mind)}/lease`, token, { holder, epoch, ...(lastStep ? { last_step: lastStep } : {}) }, keepalive);
    },
    async steps(mind: string, token: string, after: number, limit?: number): Promise<OwnSteps> {
      const q = new URLSearchParams({ after: String(after), ...(limit ? { limit: String(limit) } : {}) });
      return json(await call(fetch, `${mindUrl(mind)}/steps?${q}`, { headers: auth(token) }), OwnSteps);
    },
    /** A blob of the mind by its name within it (undefined: the server has none). */
    async blob(mind: string, token: string, name: string): Promise<string | undefined> {
      try {
        return await (await call(fetch, `${mindUrl(mind)}/blobs/${blobPath(name)}`, { headers: auth(token) })).text();
      } catch (e) {
        if (e instanceof ApiRequestError && e.status === 404) return undefined;
        throw e;
      }
    },
    async keepAlive(mind: string, token: string, body: KeepAlive): Promise<ServerHome> {
      return json(await send("PUT", `${mindUrl(mind)}/keep-alive`, token, body), ServerHome);
    },
    async halt(mind: string, token: string, halted: boolean): Promise<ServerHome> {
      return json(await send("POST", `${mindUrl(mind)}/halt`, token, { halted }), ServerHome);
    },
  };
}
export type HomeClient = ReturnType<typeof homeClient>;
