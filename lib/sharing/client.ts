// A share link's API as calls (lib/sharing/wire.ts's routes under /api/share/<token>).
import * as z from "zod";
import { Located, MindUsage, SharedMemory, SearchHits, SharedMind, StepPage } from "./wire";
import type { ControlAction } from "./roles";
import type { CurationRequest } from "../shell/curation";
import { ApiRequestError, blobPath, call, json, type FetchPort } from "../sync/client/http";

/** The routes anyone holding a link calls. */
export function shareClient(fetch: FetchPort, token: string, base = "") {
  const url = `${base}/api/share/${encodeURIComponent(token)}`;
  const query = (q: Record<string, string | number | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
    return p.toString();
  };
  return {
    eventsUrl: (after: number) => `${url}/events?${query({ after })}`,
    async mind() {
      return json(await call(fetch, url), SharedMind);
    },
    async steps(q: { traj?: string; after?: number; before?: number; limit: number }) {
      return json(await call(fetch, `${url}/steps?${query(q)}`), StepPage);
    },
    async locate(stepId: string) {
      try {
        return await json(await call(fetch, `${url}/locate/${encodeURIComponent(stepId)}`), Located);
      } catch (e) {
        if (e instanceof ApiRequestError && e.status === 404) return null;
        throw e;
      }
    },
    async search(q: string, limit: number, signal?: AbortSignal) {
      return json(await call(fetch, `${url}/search?${query({ q, limit })}`, { signal }), SearchHits);
    },
    async blob(name: string) {
      try {
        return await (await call(fetch, `${url}/blobs/${blobPath(name)}`)).text();
      } catch (e) {
        if (e instanceof ApiRequestError && e.status === 404) return undefined;
        throw e;
      }
    },
    async send(from: string, content: string) {
      const res = await call(fetch, `${url}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ from, content }) });
      return json(res, z.object({ id: z.string() }));
    },
    /** An operator's pause, resume or stop, under the name they write as. */
    async control(action: ControlAction, from: string) {
      const res = await call(fetch, `${url}/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action, ...(from.trim() ? { from: from.trim() } : {}) }) });
      return json(res, z.object({ id: z.string() }));
    },
    /** The mind's memories and goals, and the changes still waiting (an operator's invite; any other link: 403 forbidden). */
    async memory() {
      return json(await call(fetch, `${url}/memory`), SharedMemory);
    },
    /** An operator's change to the mind's memories or goals, under the name they write as; the mind's home makes it. */
    async curate(req: CurationRequest, from: string) {
      const res = await call(fetch, `${url}/memory`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...req, ...(from.trim() ? { from: from.trim() } : {}) }) });
      return json(res, z.object({ id: z.string() }));
    },
    /** What the mind spent, against its caps (an operator's invite; any other link: 403 forbidden). */
    async usage() {
      return json(await call(fetch, `${url}/usage`), MindUsage);
    },
  };
}
export type ShareClient = ReturnType<typeof shareClient>;
