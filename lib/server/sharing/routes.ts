import "server-only";
// Every /api/sync and /api/share route, as handlers over a database and a
// live hub. app/api's route files pick theirs from here; `sharingFetch`
// routes any URL to the same handlers (for in-process tests of the client).
import { BlobName, CreateMind, LeaseRequest, SYNC_LIMITS, Upload } from "@/lib/sync/wire";
import { OwnerChange } from "@/lib/sync/inbox-wire";
import { CreateLink, AlertPost, ControlRequest, CurationPost, GuestMessage, type SharedMind } from "@/lib/sharing/wire";
import { FilesRead, FilesWrite, RecordWrite, TiersRead, TiersWrite } from "@/lib/sync/state-wire";
import { readFiles, writeFiles } from "../sync/state-files";
import { readTiers, sealTiers, stateSummary, writeRecord } from "../sync/state-record";
import { postGuestMessage } from "../inbox/messages";
import { inboxContent } from "../inbox/content";
import { postOwnerChange } from "../inbox/owner";
import { postControl } from "../inbox/controls";
import { postAlert } from "../inbox/alerts";
import { postCuration, sharedMemory } from "../inbox/curations";
import { mindUsage } from "./usage";
import { can, type Capability } from "@/lib/sharing/roles";
import { eventStream, type StreamOptions } from "./events";
import { createLink, listLinks, resolveLink, revokeLink } from "./links";
import type { LiveHub } from "./live";
import { locateStep, readableBy, readBlob, readSteps, searchSteps } from "./reads";
import { SqlUnavailableError, type Sql } from "../db/sql";
import { apiError, HttpError, json, noContent, notFound, param, readBody, readJson, route, type Params } from "../http/route";
import { authorizeMind, createMind, ownSteps, putBlob, readTrajectories, syncState, uploadSteps } from "../sync/store";
import { forgetMind } from "../sync/forget";
import { bearerToken } from "./tokens";
import { syncCreator } from "./creator";
import { acquireLease, fenced, releaseLease, renewLease, wantLease } from "../state/lease";
import { DEFAULT_QUOTAS, type SyncQuotas } from "./quotas";

/** What the sync routes tell a server runner, when there is one (lib/server/runner/runtime.ts). */
export interface RunnerHooks {
  /** A home took, renewed or let go a mind's lease (it would lapse at `expiresAt`). */
  leaseChanged(sql: Sql, mind: string, expiresAt: Date): Promise<void>;
  /** A guest wrote to the mind through an invite, or an operator resumed it: wake it now. */
  guestMessage(sql: Sql, mind: string): Promise<void>;
  /** Something comes in for the mind at `at` (an alert storm's fold): wake it then, unless it wakes sooner. */
  wakeBy(sql: Sql, mind: string, at: Date): Promise<void>;
}

/** Lease holders that are server runners; a tab asking for such a lease asks it to hand over. */
const RUNNER_HOLDER = /^runner:/;

export interface SharingDeps {
  sql: Sql;
  live: LiveHub;
  /** The server runner's hooks (absent: no runner; nothing is woken on the server). */
  runner?: RunnerHooks;
  stream?: StreamOptions;
  /** The sync API's limits (default: DEFAULT_QUOTAS). */
  quotas?: SyncQuotas;
  /** The clock the usage report's hours and days are read from (default: Date.now), so a test can fix them. */
  now?: () => number;
}

const SMALL_BODY = 64 * 1024;
/** A read of files or summaries names up to SYNC_LIMITS.filesPerRequest paths of up to 4 KiB. */
const READ_BODY = 1024 * 1024;

/** Errors that mean the database is gone, not that the request was wrong. */
function unavailable(e: unknown): Response | undefined {
  const code = (e as { code?: string }).code ?? "";
  const down = e instanceof SqlUnavailableError || /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|57P0[1-3]|08\d\d\d)$/.test(code) || /Connection terminated|timeout exceeded when trying to connect/i.test((e as Error).message ?? "");
  if (!down) return undefined;
  console.error(`sharing API: the database is unavailable: ${(e as Error).message}`);
  return apiError(503, "unavailable", "the sharing database is unavailable; nothing was changed; try again shortly", {}, { "Retry-After": "5" });
}

function validBlobName(params: Params): string {
  const name = param(params, "name");
  const ok = BlobName.safeParse(name);
  if (!ok.success) throw new HttpError(400, "invalid", `not a blob name: ${ok.error.issues.map((i) => i.message).join("; ")}`);
  return name;
}

/** A blob upload's lease epoch, from its X-Reverie-Epoch header (absent: none). */
function epochHeader(request: Request): number | undefined {
  const raw = request.headers.get("x-reverie-epoch");
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new HttpError(400, "invalid", `X-Reverie-Epoch must be a lease epoch (a whole number ≥ 1), not ${JSON.stringify(raw)}`);
  return n;
}

/** Last-Event-ID wins over ?after (it is what the browser saw last). */
function resumeFrom(request: Request, url: URL): number {
  const raw = request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0";
  const n = Number(raw || "0");
  if (!Number.isSafeInteger(n) || n < 0) throw new HttpError(400, "invalid", `after / Last-Event-ID must be a seq (a whole number ≥ 0), not ${JSON.stringify(raw)}`);
  return n;
}

export function sharingRoutes(deps: () => Promise<SharingDeps>) {
  const r = (handlers: Parameters<typeof route>[0]) => route(handlers, unavailable);

  /** Runs `fn` for the mind named in the path, once the write token checks out. */
  const asMind = (fn: (d: SharingDeps, mind: string, request: Request, params: Params) => Promise<Response>) => async (request: Request, params: Params) => {
    const d = await deps();
    const mind = param(params, "mind");
    await authorizeMind(d.sql, mind, bearerToken(request));
    return fn(d, mind, request, params);
  };

  /** Runs `fn` for the link the token opens, once its holder may do `cap` (lib/sharing/roles.ts: the one table of who may do what). */
  const viaLink = (cap: Capability, fn: (d: SharingDeps, link: Awaited<ReturnType<typeof resolveLink>>, request: Request, params: Params) => Promise<Response>) => async (request: Request, params: Params) => {
    const d = await deps();
    const link = await resolveLink(d.sql, param(params, "token"));
    if (!can(link.holder, cap)) throw forbidden(link.holder, cap);
    return fn(d, link, request, params);
  };

  return {
    minds: r({
      POST: async (request) => {
        const d = await deps();
        const body = await readJson(request, CreateMind, SMALL_BODY);
        const who = await syncCreator(request, d.sql);
        const res = json(await createMind(d.sql, body.name, who, d.quotas ?? DEFAULT_QUOTAS), 201);
        if (who.setCookie) res.headers.append("Set-Cookie", who.setCookie);
        return res;
      },
    }),
    mind: r({
      GET: asMind(async (d, mind) => json(await syncState(d.sql, mind, d.quotas ?? DEFAULT_QUOTAS))),
      // Its owner forgets it here: every row the server keeps for it, steps included (the one way past their append-only trigger).
      DELETE: asMind(async (d, mind) => {
        await forgetMind(d.sql, mind);
        return noContent();
      }),
    }),
    steps: r({
      // What another home (the server runner) wrote, for the mind's own browser to pull when it takes the mind back.
      GET: asMind(async (d, mind, request) => {
        const url = new URL(request.url);
        const num = (name: string, fallback: number) => {
          const raw = url.searchParams.get(name);
          const n = raw === null || raw === "" ? fallback : Number(raw);
          if (!Number.isSafeInteger(n) || n < 0) throw new HttpError(400, "invalid", `${name} must be a whole number ≥ 0, not ${JSON.stringify(raw)}`);
          return n;
        };
        return json(await ownSteps(d.sql, mind, num("after", 0), Math.min(num("limit", SYNC_LIMITS.readSteps), SYNC_LIMITS.readSteps)));
      }),
      POST: asMind(async (d, mind, request) => {
        const body = await readJson(request, Upload, SYNC_LIMITS.batchBytes, (value) => {
          const steps = (value as { steps?: unknown } | null)?.steps;
          if (Array.isArray(steps) && steps.length > SYNC_LIMITS.batchSteps) throw new HttpError(413, "too_large", `a batch holds at most ${SYNC_LIMITS.batchSteps} steps, not ${steps.length}`);
        });
        return json(await uploadSteps(d.sql, mind, body, d.quotas ?? DEFAULT_QUOTAS));
      }),
    }),
    blobs: r({
      GET: asMind(async (d, mind, _request, params) => {
        const text = await readBlob(d.sql, mind, validBlobName(params));
        return new Response(text, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
      }),
      PUT: asMind(async (d, mind, request, params) => {
        const name = validBlobName(params);
        await putBlob(d.sql, mind, name, await readBody(request, SYNC_LIMITS.blobBytes), d.quotas ?? DEFAULT_QUOTAS, epochHeader(request));
        return noContent();
      }),
    }),
    lease: r({
      POST: asMind(async (d, mind, request) => {
        const body = await readJson(request, LeaseRequest, SMALL_BODY);
        const told = (expiresAt: string) => d.runner?.leaseChanged(d.sql, mind, new Date(expiresAt)).catch((e: unknown) => console.error(`runner: could not queue ${mind}'s wake: ${String(e)}`));
        if (body.epoch === undefined) {
          const got = await acquireLease(d.sql, mind, body.holder, body.ttl_s);
          if (!got.ok) {
            // A runner hosts it: ask it to hand over (it ends its run and lets go within its poll); the asker tries again.
            const handingOver = RUNNER_HOLDER.test(got.lease.holder) && !RUNNER_HOLDER.test(body.holder);
            if (handingOver) await wantLease(d.sql, mind, body.holder);
            throw new HttpError(409, "leased", handingOver ? "the server runner holds this mind; it was asked to hand it over: try again in a second" : `this mind is held by another home until ${got.lease.expires_at}`, {
              holder: got.lease.holder,
              expires_at: got.lease.expires_at,
              handing_over: handingOver,
            });
          }
          await told(got.lease.expires_at);
          return json(got.lease);
        }
        const renewed = await renewLease(d.sql, mind, body.holder, body.epoch, body.ttl_s);
        if (renewed === "fenced") throw fenced(`epoch ${body.epoch} is no longer this holder's lease; take the lease again`);
        await told(renewed.expires_at);
        return json(renewed);
      }),
      DELETE: asMind(async (d, mind, request) => {
        const body = await readJson(request, LeaseRequest, SMALL_BODY);
        if (body.epoch === undefined) throw new HttpError(400, "invalid", "releasing a lease needs its epoch");
        if (!(await releaseLease(d.sql, mind, body.holder, body.epoch, body.last_step))) throw fenced(`epoch ${body.epoch} is no longer this holder's lease`);
        await d.runner?.leaseChanged(d.sql, mind, new Date()).catch((e: unknown) => console.error(`runner: could not queue ${mind}'s wake: ${String(e)}`));
        return noContent();
      }),
    }),
    links: r({
      GET: asMind(async (d, mind) => json({ links: await listLinks(d.sql, mind) })),
      POST: asMind(async (d, mind, request) => json(await createLink(d.sql, mind, await readJson(request, CreateLink, SMALL_BODY), (d.quotas ?? DEFAULT_QUOTAS).linksPerMind), 201)),
    }),
    link: r({
      DELETE: asMind(async (d, mind, _request, params) => {
        await revokeLink(d.sql, mind, param(params, "id"));
        return noContent();
      }),
    }),
    inbox: r({ GET: asMind(async (d, mind) => json(await inboxContent(d.sql, mind))) }),
    // Its own browser hands it something while another home holds it: kept, and a mind kept alive on the server is woken for it.
    owner: r({
      POST: asMind(async (d, mind, request) => {
        const kept = await postOwnerChange(d.sql, mind, await readJson(request, OwnerChange, SYNC_LIMITS.recordBytes));
        if (kept) await d.runner?.guestMessage(d.sql, mind).catch((e: unknown) => console.error(`runner: could not wake ${mind}: ${String(e)}`));
        return json({ kept }, 202);
      }),
    }),

    // The mind's state beyond its steps (lib/sync/wire.ts, "the mind's state"): every write fenced and counted like an upload.
    state: r({ GET: asMind(async (d, mind) => json(await stateSummary(d.sql, mind))) }),
    files: r({
      POST: asMind(async (d, mind, request) => json(await writeFiles(d.sql, mind, await readJson(request, FilesWrite, SYNC_LIMITS.filesBodyBytes), d.quotas ?? DEFAULT_QUOTAS))),
    }),
    filesRead: r({ POST: asMind(async (d, mind, request) => json(await readFiles(d.sql, mind, (await readJson(request, FilesRead, READ_BODY)).paths))) }),
    tiers: r({ POST: asMind(async (d, mind, request) => json(await sealTiers(d.sql, mind, await readJson(request, TiersWrite, SYNC_LIMITS.batchBytes), d.quotas ?? DEFAULT_QUOTAS))) }),
    tiersRead: r({
      POST: asMind(async (d, mind, request) => {
        const body = await readJson(request, TiersRead, READ_BODY);
        return json({ tiers: await readTiers(d.sql, mind, body.traj, body.keys) });
      }),
    }),
    record: r({ PUT: asMind(async (d, mind, request) => json(await writeRecord(d.sql, mind, await readJson(request, RecordWrite, SYNC_LIMITS.recordBytes), d.quotas ?? DEFAULT_QUOTAS))) }),

    shared: r({
      GET: viaLink("conversation", async (d, link) => {
        const body: SharedMind = { kind: link.kind, role: link.holder.kind === "invite" ? link.holder.role : null, name: link.name, at_seq: link.at_seq, last_seq: link.last_seq, trajectories: await readTrajectories(d.sql, link.mind, link.at_seq) };
        return json(body);
      }),
    }),
    sharedSteps: r({ GET: viaLink("conversation", async (d, link, request) => json(await readSteps(d.sql, link, new URL(request.url)))) }),
    sharedLocate: r({ GET: viaLink("conversation", async (d, link, _request, params) => json(await locateStep(d.sql, link, param(params, "step")))) }),
    sharedSearch: r({ GET: viaLink("conversation", async (d, link, request) => json(await searchSteps(d.sql, link, new URL(request.url)))) }),
    sharedBlobs: r({
      GET: viaLink("stream", async (d, link, _request, params) => {
        const text = await readBlob(d.sql, link.mind, validBlobName(params));
        return new Response(text, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
      }),
    }),
    sharedEvents: r({
      GET: viaLink("conversation", async (d, link, request) => {
        // A snapshot does not move: there is nothing to follow.
        if (link.kind === "snapshot") throw notFound();
        return eventStream(d.live, link, resumeFrom(request, new URL(request.url)), request.signal, d.stream, (json) => readableBy(link, json));
      }),
    }),
    sharedMessages: r({
      POST: viaLink("talk", async (d, link, request) => {
        const posted = await postGuestMessage(d.sql, link, await readJson(request, GuestMessage, SMALL_BODY));
        // A mind kept alive on the server is woken there; one in a tab reads its inbox itself.
        await d.runner?.guestMessage(d.sql, link.mind).catch((e: unknown) => console.error(`runner: could not wake ${link.mind}: ${String(e)}`));
        return json(posted, 202);
      }),
    }),
    // What the mind spent, against its caps, as its owner's Usage tab shows it.
    sharedUsage: r({ GET: viaLink("usage", async (d, link) => json(await mindUsage(d.sql, link.mind, (d.now ?? Date.now)()))) }),
    sharedAlerts: r({
      POST: viaLink("alert", async (d, link, request) => {
        const posted = await postAlert(d.sql, link, await readJson(request, AlertPost, SMALL_BODY));
        // One alone reaches a mind kept alive on the server at once; a storm's fold once its minute is over (a put-away mind is woken for it then).
        const wake = posted.coalesced ? (posted.stormEnds ? d.runner?.wakeBy(d.sql, link.mind, new Date(posted.stormEnds.getTime() + 1000)) : undefined) : d.runner?.guestMessage(d.sql, link.mind);
        await wake?.catch((e: unknown) => console.error(`runner: could not wake ${link.mind}: ${String(e)}`));
        return json({ id: posted.id, coalesced: posted.coalesced }, 202);
      }),
    }),
    sharedMemory: r({
      GET: viaLink("curate", async (d, link) => json(await sharedMemory(d.sql, link.mind))),
      POST: viaLink("curate", async (d, link, request) => {
        const posted = await postCuration(d.sql, link, await readJson(request, CurationPost, SMALL_BODY));
        // A mind kept alive on the server is woken there to make the change; one in a tab takes it from its inbox.
        await d.runner?.guestMessage(d.sql, link.mind).catch((e: unknown) => console.error(`runner: could not wake ${link.mind}: ${String(e)}`));
        return json(posted, 202);
      }),
    }),
    sharedControl: r({
      POST: viaLink("control", async (d, link, request) => {
        const done = await postControl(d.sql, link, await readJson(request, ControlRequest, SMALL_BODY));
        // On the server: a pause or stop ends a hosted stretch at the runner's next poll (the mind is halted); a resume wakes it.
        if (done.action === "resume") await d.runner?.guestMessage(d.sql, link.mind).catch((e: unknown) => console.error(`runner: could not wake ${link.mind}: ${String(e)}`));
        return json(done, 202);
      }),
    }),
  };
}

/** A link asked for what its holder may not do: 403 forbidden, saying what it may. A read-only link asked to talk keeps its older code, read_only. */
function forbidden(holder: Parameters<typeof can>[0], cap: Capability): HttpError {
  if (cap === "talk") return new HttpError(403, "read_only", "this link is read-only; only an invite link can send messages");
  const who = holder.kind === "invite" ? `${holder.role === "operator" ? "an" : "a"} ${holder.role}'s invite` : `${holder.kind === "alert" ? "an" : "a"} ${holder.kind} link`;
  const what =
    cap === "control"
      ? "pause, resume or stop the mind (only an operator's invite may)"
      : cap === "curate"
        ? "read or change the mind's memories and goals (only an operator's invite may)"
        : cap === "usage"
          ? "see what the mind spends (only an operator's invite may)"
      : cap === "stream"
        ? "read the mind's whole stream (a guest reads its conversations)"
        : cap === "alert"
          ? "post alerts (only an alert link may)"
          : "read the mind: it only posts alerts, to POST /api/share/<token>/alerts {title, body?, severity?}";
  return new HttpError(403, "forbidden", `${who} may not ${what}`);
}

export type SharingRoutes = ReturnType<typeof sharingRoutes>;

const PATTERNS: [RegExp, keyof SharingRoutes, string[]][] = [
  [/^\/api\/sync\/minds$/, "minds", []],
  [/^\/api\/sync\/minds\/([^/]+)$/, "mind", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/steps$/, "steps", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/blobs\/(.+)$/, "blobs", ["mind", "name"]],
  [/^\/api\/sync\/minds\/([^/]+)\/links$/, "links", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/links\/([^/]+)$/, "link", ["mind", "id"]],
  [/^\/api\/sync\/minds\/([^/]+)\/inbox$/, "inbox", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/owner$/, "owner", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/lease$/, "lease", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/state$/, "state", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/files$/, "files", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/files\/read$/, "filesRead", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/tiers$/, "tiers", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/tiers\/read$/, "tiersRead", ["mind"]],
  [/^\/api\/sync\/minds\/([^/]+)\/record$/, "record", ["mind"]],
  [/^\/api\/share\/([^/]+)$/, "shared", ["token"]],
  [/^\/api\/share\/([^/]+)\/steps$/, "sharedSteps", ["token"]],
  [/^\/api\/share\/([^/]+)\/locate\/([^/]+)$/, "sharedLocate", ["token", "step"]],
  [/^\/api\/share\/([^/]+)\/search$/, "sharedSearch", ["token"]],
  [/^\/api\/share\/([^/]+)\/blobs\/(.+)$/, "sharedBlobs", ["token", "name"]],
  [/^\/api\/share\/([^/]+)\/events$/, "sharedEvents", ["token"]],
  [/^\/api\/share\/([^/]+)\/messages$/, "sharedMessages", ["token"]],
  [/^\/api\/share\/([^/]+)\/control$/, "sharedControl", ["token"]],
  [/^\/api\/share\/([^/]+)\/memory$/, "sharedMemory", ["token"]],
  [/^\/api\/share\/([^/]+)\/usage$/, "sharedUsage", ["token"]],
  [/^\/api\/share\/([^/]+)\/alerts$/, "sharedAlerts", ["token"]],
];

/** A fetch over the sharing routes, as Next would route them (path segments decoded), for in-process use. */
export function sharingFetch(routes: SharingRoutes): (request: Request) => Promise<Response> {
  return async (request) => {
    const path = new URL(request.url).pathname;
    for (const [re, name, keys] of PATTERNS) {
      const m = re.exec(path);
      if (!m) continue;
      const params: Params = {};
      keys.forEach((k, i) => {
        const raw = m[i + 1] ?? "";
        params[k] = k === "name" ? raw.split("/").map(decodeURIComponent) : decodeURIComponent(raw);
      });
      return routes[name](request, { params: Promise.resolve(params) });
    }
    return apiError(404, "not_found", "no such sharing endpoint");
  };
}

