// The viewer's StepSource over a share link: the same reads as a mind in this
// browser, from /api/share/<token>/…, and for a live or invite link, `watch`
// over server-sent events that resumes from the last seq it saw after a
// reconnect. A revoked link is noticed (an `event: revoked`, or a 404 when
// reconnecting) and reported once through `onRevoked`.
import type { StepSource, TrajectoryRow } from "../trajectory/source";
import { keptLine, readLine, type StepLine } from "../trajectory/headlong";
import { entryOf, type IndexEntry } from "../trajectory/rows";
import { REVOKED_EVENT, STEP_EVENT, type SharedMind } from "./wire";
import { SYNC_LIMITS, WireStep } from "../sync/wire";
import { ApiRequestError } from "../sync/client/http";
import { type ShareClient } from "./client";

/** What `watch` needs of the browser's EventSource (a port, so the source runs wherever one is given). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (e: MessageEvent) => void): void;
  onerror: ((e: Event) => void) | null;
  readonly readyState: number;
  close(): void;
}
export type OpenEvents = (url: string) => EventSourceLike;

const CLOSED = 2;
const RECONNECT_MS = 2000;

/** A step as it arrived, parsed (a line kept as invalid is shown as such); null (skipped) when it is not a step at all. */
export function parseWireStep(data: string): { seq: number; traj: string; step: StepLine } | null {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return null;
  }
  const wire = WireStep.safeParse(raw);
  if (!wire.success) return null;
  const line = keptLine(readLine(wire.data.json));
  return line ? { seq: wire.data.seq, traj: wire.data.traj, step: line } : null;
}

export interface RemoteSourceOptions {
  client: ShareClient;
  /** What GET /api/share/<token> said when the page opened. */
  shared: SharedMind;
  /** Absent: no live updates (a snapshot, or no EventSource here). */
  openEvents?: OpenEvents;
  onRevoked?: () => void;
  /** Waits between a failed stream and the next try (the browser's setTimeout in the page). */
  delay?: (ms: number) => Promise<void>;
  /** Told of each new step the live stream brings, of any trajectory, once (an invite page counts messages to its reader). */
  onStep?: (step: StepLine) => void;
}

export function remoteSource({ client, shared, openEvents, onRevoked, delay, onStep }: RemoteSourceOptions): StepSource {
  const root = shared.trajectories.find((t) => !t.parent_traj)?.traj ?? shared.trajectories[0]?.traj;
  const trajRows: TrajectoryRow[] = shared.trajectories.map((t) => ({ mind_id: root ?? "", traj_id: t.traj, name: t.name, dir: t.dir, parent_traj: t.parent_traj, parent_step: t.parent_step }));
  // Bodies the viewer asks for are those of entries it was given, so every step read is kept by seq.
  const bodies = new Map<number, StepLine>();
  let revoked = false;
  const revoke = () => {
    if (revoked) return;
    revoked = true;
    onRevoked?.();
  };
  const guard = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (e) {
      if (e instanceof ApiRequestError && e.status === 404 && e.code === "not_found") revoke();
      throw e;
    }
  };
  const take = (steps: WireStep[], traj?: string): IndexEntry[] =>
    steps.flatMap((w) => {
      const line = keptLine(readLine(w.json));
      if (!line || (traj && w.traj !== traj)) return [];
      bodies.set(w.seq, line);
      return [entryOf(w.seq, line)];
    });

  const source: StepSource = {
    root,
    trajectories: async () => trajRows,
    blob: (traj, ref) => guard(() => client.blob(traj?.dir ? `${traj.dir}/${ref}` : ref)),
    async newest(traj, n) {
      const { last_seq } = await guard(() => client.mind());
      const page = await guard(() => client.steps({ traj, before: last_seq + 1, limit: Math.min(n, SYNC_LIMITS.readSteps) }));
      return take(page.steps);
    },
    async older(traj, beforeSeq, onPage, signal) {
      let after = 0;
      while (after < beforeSeq - 1) {
        signal?.throwIfAborted();
        const page = await guard(() => client.steps({ traj, after, limit: SYNC_LIMITS.readSteps }));
        const entries = take(page.steps.filter((s) => s.seq < beforeSeq));
        if (entries.length) onPage(entries);
        if (page.steps.length < SYNC_LIMITS.readSteps) return;
        after = page.steps[page.steps.length - 1]?.seq ?? beforeSeq;
      }
    },
    async bodies(seqs) {
      const out = new Map<number, StepLine>();
      for (const seq of seqs) {
        let step = bodies.get(seq);
        if (!step) {
          take((await guard(() => client.steps({ after: seq - 1, limit: 1 }))).steps);
          step = bodies.get(seq);
        }
        if (step) out.set(seq, step);
      }
      return out;
    },
    locate: (stepId) => guard(() => client.locate(stepId)),
    search: (query, opts = {}) => guard(() => client.search(query, opts.limit ?? 500, opts.signal)),
  };
  if (!openEvents || shared.kind === "snapshot") return source;

  source.watch = (traj, afterSeq, onEntries) => {
    let seen = afterSeq;
    let events: EventSourceLike | null = null;
    let stopped = false;
    const connect = () => {
      if (stopped || revoked) return;
      // After a reconnect of its own, EventSource sends Last-Event-ID; after one of ours, `after` says the same.
      const es = openEvents(client.eventsUrl(seen));
      events = es;
      es.addEventListener(STEP_EVENT, (e) => {
        const got = parseWireStep(String(e.data));
        if (!got || got.seq <= seen) return;
        seen = got.seq;
        onStep?.(got.step);
        if (got.traj !== traj) return;
        bodies.set(got.seq, got.step);
        onEntries([entryOf(got.seq, got.step)]);
      });
      es.addEventListener(REVOKED_EVENT, () => {
        es.close();
        revoke();
      });
      es.onerror = () => {
        // The browser retries a dropped stream by itself; it gives up (CLOSED) on a refusal such as 404.
        if (es.readyState !== CLOSED || stopped) return;
        void (async () => {
          try {
            await client.mind();
          } catch (e) {
            if (e instanceof ApiRequestError && e.status === 404) return revoke();
          }
          await (delay ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(RECONNECT_MS);
          connect();
        })();
      };
    };
    connect();
    return () => {
      stopped = true;
      events?.close();
    };
  };
  return source;
}
