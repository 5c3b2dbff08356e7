// The sync API as calls (lib/sync/wire.ts's routes over a fetch port, each
// answer parsed: ./http.ts).
import * as z from "zod";
import { CreatedMind, GapError, SyncState, Uploaded, type Upload } from "../wire";
import { CreatedLink, LinkInfo, type LinkKind } from "../../sharing/wire";
import { InboxContent, type OwnerChange } from "../inbox-wire";
import { FilesContent, FilesWritten, MindStateSummary, RecordWritten, TiersContent, TiersSealed, type FilesWrite, type RecordWrite, type TiersWrite } from "../state-wire";
import type { InviteRole } from "../../sharing/roles";
import { ApiRequestError, blobPath, call, json, type FetchPort } from "./http";

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
    /** Hand the mind a step or a change while another home holds it; false when the server kept one of its id already. */
    async owner(mind: string, token: string, change: OwnerChange) {
      const res = await call(fetch, `${mindUrl(mind)}/owner`, { method: "POST", headers: { ...auth(token), "content-type": "application/json" }, body: JSON.stringify(change) });
      return (await json(res, z.object({ kept: z.boolean() }))).kept;
    },
    // The mind's state beyond its steps (lib/sync/client/state-sync.ts).
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
