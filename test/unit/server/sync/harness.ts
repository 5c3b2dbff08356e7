// The sharing API in-process for the server-sync and server-share tests: the
// real route handlers over a real database (PGlite or PostgreSQL), reached by
// real Request objects through the same path routing Next does.
import { randomUUID } from "node:crypto";
import { openLiveHub, type LiveHub } from "@/lib/server/sharing/live";
import { sharingFetch, sharingRoutes, type RunnerHooks } from "@/lib/server/sharing/routes";
import type { Sql } from "@/lib/server/db/sql";
import { DEFAULT_QUOTAS, type SyncQuotas } from "@/lib/server/sharing/quotas";
import type { WireStep } from "@/lib/sync/wire";

export const ORIGIN = "http://app.test";

/** A fresh database of `engine` with the sharing routes over it (as the tests of the browser's sync reach them): `remove` closes and drops it all. */
export async function sharingServer(engine: { fresh(): Promise<{ open(): Promise<Sql>; remove(): Promise<void> }> }): Promise<{ sql: Sql; live: LiveHub; fetch(request: Request): Promise<Response>; remove(): Promise<void> }> {
  const fresh = await engine.fresh();
  const sql = await fresh.open();
  const live = openLiveHub(sql);
  return {
    sql,
    live,
    fetch: sharingFetch(sharingRoutes(async () => ({ sql, live }))),
    async remove() {
      await live.close();
      await sql.close();
      await fresh.remove();
    },
  };
}

export interface App {
  sql: Sql;
  live: LiveHub;
  fetch(request: Request): Promise<Response>;
  call(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  close(): Promise<void>;
}

/** One server instance over `sql`: its own live hub, as a separate process would have. */
export function instance(sql: Sql, opts: { pollMs?: number; heartbeatMs?: number; maxQueuedBytes?: number; maxPerLink?: number; quotas?: Partial<SyncQuotas>; runner?: RunnerHooks } = {}): App {
  const live = openLiveHub(sql, { pollMs: opts.pollMs ?? 2_000 });
  const quotas = { ...DEFAULT_QUOTAS, ...opts.quotas };
  const fetch = sharingFetch(sharingRoutes(async () => ({ sql, live, quotas, ...(opts.runner ? { runner: opts.runner } : {}), stream: { heartbeatMs: opts.heartbeatMs, maxQueuedBytes: opts.maxQueuedBytes, maxPerLink: opts.maxPerLink } })));
  return {
    sql,
    live,
    fetch,
    call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: BodyInit | undefined;
      if (o.body !== undefined) body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      return fetch(new Request(`${ORIGIN}${path}`, { method, headers, body, signal: o.signal }));
    },
    close: () => live.close(),
  };
}

let seqTs = Date.UTC(2026, 11, 1);
/** A thought step as the browser would upload it. */
export function thought(seq: number, content = `thought ${seq}`, traj = "root"): WireStep & { id: string } {
  const id = randomUUID();
  const json = JSON.stringify({ type: "thought", step_id: id, ts: new Date(seqTs++).toISOString(), source: "inner", content });
  return { seq, traj, json, id };
}

export const wire = ({ seq, traj, json }: WireStep): WireStep => ({ seq, traj, json });

export async function newMind(app: App, name = "Ada"): Promise<{ mind: string; token: string }> {
  const res = await app.call("POST", "/api/sync/minds", { body: { name } });
  if (res.status !== 201) throw new Error(`create mind: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { mind: string; write_token: string };
  return { mind: body.mind, token: body.write_token };
}

export async function upload(app: App, m: { mind: string; token: string }, after: number, steps: WireStep[], extra: Record<string, unknown> = {}): Promise<Response> {
  return app.call("POST", `/api/sync/minds/${m.mind}/steps`, { token: m.token, body: { after, steps: steps.map(wire), ...extra } });
}

export async function newLink(app: App, m: { mind: string; token: string }, kind: "snapshot" | "live" | "invite" | "alert", extra: Record<string, unknown> = {}): Promise<{ id: string; token: string; at_seq: number | null; role: string | null }> {
  const res = await app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind, ...extra } });
  if (res.status !== 201) throw new Error(`create link: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; token: string; at_seq: number | null; role: string | null };
}

/** Every row of the sharing tables, to show that a refused request changed nothing. */
export async function dump(sql: Sql): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const t of ["sync_minds", "sync_steps", "sync_blobs", "sync_trajectories", "share_links", "guest_messages", "mind_controls", "link_alerts", "alert_storms"]) {
    out[t] = await sql.query(`SELECT * FROM ${t} ORDER BY 1, 2`);
  }
  return out;
}

/** Reads server-sent events from a response body: each event's name, id and data, as they arrive. */
export function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: { event: string; id?: string; data: string }[] = [];
  let ended = false;
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: { event: string; id?: string; data: string } = { event: "message", data: "" };
        let has = false;
        for (const line of block.split("\n")) {
          if (line.startsWith(":") || line.startsWith("retry:")) continue;
          const colon = line.indexOf(":");
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") e.event = value;
          else if (field === "id") e.id = value;
          else if (field === "data") e.data += value;
          has = true;
        }
        if (has) events.push(e);
      }
    }
    ended = true;
  })();
  return {
    events,
    get ended() {
      return ended;
    },
    /** Resolves once `n` events have arrived (or throws after timeoutMs). */
    async waitFor(n: number, timeoutMs = 10_000) {
      const start = Date.now();
      while (events.length < n) {
        if (Date.now() - start > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${n} events, got ${events.length}: ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return events.slice(0, n);
    },
    async waitEnd(timeoutMs = 10_000) {
      const start = Date.now();
      while (!ended) {
        if (Date.now() - start > timeoutMs) throw new Error(`stream did not end within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    done: pump,
    cancel: () => reader.cancel().catch(() => {}),
  };
}
