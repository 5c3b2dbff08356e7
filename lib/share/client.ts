// The sharing API as calls: lib/share/api.ts's routes over a fetch port, every
// answer parsed with its schema. A refused request is an ApiRequestError with
// the server's code; a request that never got an answer is an OfflineError.
import * as z from "zod";
import {
  ApiError,
  CreatedLink,
  CreatedMind,
  GapError,
  InboxContent,
  LinkInfo,
  Located,
  MindUsage,
  SharedMemory,
  SearchHits,
  SharedMind,
  StepPage,
  SyncState,
  Uploaded,
  FilesContent,
  FilesWritten,
  MindStateSummary,
  RecordWritten,
  TiersContent,
  TiersSealed,
  type FilesWrite,
  type LinkKind,
  type RecordWrite,
  type TiersWrite,
  type Upload,
} from "./api";
import type { ControlAction, InviteRole } from "./roles";
import type { CurationRequest } from "../shell/curation";

export type FetchPort = (input: string, init?: RequestInit) => Promise<Response>;

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After (429). */
    readonly retryAfter?: number,
    /** The parsed error body, for codes that carry more (a gap's last_seq). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** The server could not be reached (offline, DNS, connection refused). */
export class OfflineError extends Error {}

export async function call(fetch: FetchPort, url: string, init?: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new OfflineError(`The server could not be reached: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported by status below
  }
  const parsed = ApiError.safeParse(body);
  const retry = Number(res.headers.get("retry-after"));
  throw new ApiRequestError(
    res.status,
    parsed.success ? parsed.data.error.code : `http_${res.status}`,
    parsed.success ? parsed.data.error.message : `The server answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
    body,
  );
}

export const json = async <T>(res: Response, schema: z.ZodType<T>): Promise<T> => schema.parse(await res.json());

/** Blob names may hold slashes (`<dir>/blobs/<file>`): each segment is encoded, the slashes kept. */
export const blobPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

export type UploadResult = { ok: true; uploaded: Uploaded } | { ok: false; gap: number };

/** The routes a mind's own browser calls, with its write token. */
export function syncClient(fetch: FetchPort, base = "") {
  const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
  const mindUrl = (mind: string) => `${base}/api/sync/minds/${encodeURIComponent(mind)}`;
  const post = (url: string, token: string, body: unknown) => call(fetch, url, { method: "POST", headers: auth(token, { "content-type": "application/json" }), body: JSON.stringify(body) });
  return {
    async createMind(name: string) {
      const res = await call(fetch, `${base}/api/sync/minds`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
      return json(res, CreatedMind);
    },
    async state(mind: string, token: string) {
      return json(await call(fetch, mindUrl(mind), { headers: auth(token) }), SyncState);
    },
    /** A gap is not an error: the server says where to resume. */
    async upload(mind: string, token: string, batch: Upload): Promise<UploadResult> {
      try {
        const res = await call(fetch, `${mindUrl(mind)}/steps`, { method: "POST", headers: auth(token, { "content-type": "application/json" }), body: JSON.stringify(batch) });
        return { ok: true, uploaded: await json(res, Uploaded) };
      } catch (e) {
        const gap = e instanceof ApiRequestError && e.status === 409 ? GapError.safeParse(e.body) : null;
        if (gap?.success) return { ok: false, gap: gap.data.error.last_seq };
        throw e;
      }
    },
    async putBlob(mind: string, token: string, name: string, text: string, epoch?: number) {
      const headers = auth(token, { "content-type": "text/plain; charset=utf-8", ...(epoch !== undefined ? { "x-reverie-epoch": String(epoch) } : {}) });
      await call(fetch, `${mindUrl(mind)}/blobs/${blobPath(name)}`, { method: "PUT", headers, body: text });
    },
    async createLink(mind: string, token: string, link: { kind: LinkKind; at_seq?: number; label?: string; role?: InviteRole }) {
      const res = await call(fetch, `${mindUrl(mind)}/links`, { method: "POST", headers: auth(token, { "content-type": "application/json" }), body: JSON.stringify(link) });
      return json(res, CreatedLink);
    },
    async links(mind: string, token: string) {
      return json(await call(fetch, `${mindUrl(mind)}/links`, { headers: auth(token) }), z.object({ links: z.array(LinkInfo) })).then((r) => r.links);
    },
    async revokeLink(mind: string, token: string, id: string) {
      await call(fetch, `${mindUrl(mind)}/links/${encodeURIComponent(id)}`, { method: "DELETE", headers: auth(token) });
    },
    async inbox(mind: string, token: string) {
      return json(await call(fetch, `${mindUrl(mind)}/inbox`, { headers: auth(token) }), InboxContent);
    },
    // The mind's state beyond its steps (lib/share/state-sync.ts).
    async mindState(mind: string, token: string) {
      return json(await call(fetch, `${mindUrl(mind)}/state`, { headers: auth(token) }), MindStateSummary);
    },
    async readFiles(mind: string, token: string, paths: string[]) {
      return json(await post(`${mindUrl(mind)}/files/read`, token, { paths }), FilesContent);
    },
    async writeFiles(mind: string, token: string, write: FilesWrite) {
      return json(await post(`${mindUrl(mind)}/files`, token, write), FilesWritten);
    },
    async sealTiers(mind: string, token: string, write: TiersWrite) {
      return json(await post(`${mindUrl(mind)}/tiers`, token, write), TiersSealed);
    },
    async readTiers(mind: string, token: string, traj: string, keys: { tier: number; index: number }[]) {
      return json(await post(`${mindUrl(mind)}/tiers/read`, token, { traj, keys }), TiersContent).then((r) => r.tiers);
    },
    async putRecord(mind: string, token: string, write: RecordWrite) {
      return json(await call(fetch, `${mindUrl(mind)}/record`, { method: "PUT", headers: auth(token, { "content-type": "application/json" }), body: JSON.stringify(write) }), RecordWritten);
    },
  };
}
export type SyncClient = ReturnType<typeof syncClient>;

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
