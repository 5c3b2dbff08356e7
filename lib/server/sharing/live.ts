import "server-only";
// Live links, fanned out per process: one follower per mind reads each new
// batch of steps once and hands it to every subscriber (viewer) of that mind.
// It wakes on pg_notify (an upload or a revocation through any instance that
// shares the database; PGlite delivers its own notifications in-process) and
// on a slow poll, the safety net for a notification lost while LISTEN was
// reconnecting. The same wake checks for revoked links.
import { SYNC_LIMITS, type WireStep } from "@/lib/sync/wire";
import { stepsAfter } from "./reads";
import type { Sql } from "../db/sql";
import { SYNC_CHANNEL } from "../sync/store";

export type LiveEvent = { kind: "step"; step: WireStep } | { kind: "revoked" };

export interface Subscriber {
  link: string;
  /** Called in seq order, each step once; after "revoked", nothing more. */
  send(event: LiveEvent): void;
}

export interface LiveHub {
  /** Follows `mind` for `sub`, starting after seq `after`; resolves to its unsubscribe once caught up. */
  subscribe(mind: string, after: number, sub: Subscriber): Promise<() => void>;
  /** How many followers (minds) and subscribers this process holds. */
  stats(): { minds: number; subscribers: number };
  close(): Promise<void>;
}

export interface LiveOptions {
  /** Safety-net poll per followed mind (ms). */
  pollMs?: number;
}

type Sub = Subscriber & { cursor: number };

class Follower {
  readonly subs = new Set<Sub>();
  /** Subscribers joined or joining: the follower lives while any remain. */
  refs = 0;
  private head: number | undefined;
  private chain: Promise<void> = Promise.resolve();
  private pending = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly sql: Sql,
    readonly mind: string,
    pollMs: number,
  ) {
    this.timer = setInterval(() => this.wake(), pollMs);
    this.timer.unref?.();
  }

  /** Work on one follower runs one task at a time, so a catch-up and a fan-out never interleave. */
  private run(task: () => Promise<void>): Promise<void> {
    const next = this.chain.then(task);
    this.chain = next.catch((e: Error) => console.error(`live links: reading mind ${this.mind} failed (next wake retries): ${e.message}`));
    return next;
  }

  /** Coalesced: many notifications while a read runs make one more read, not many. */
  wake(): void {
    if (this.pending) return;
    this.pending = true;
    void this.run(async () => {
      this.pending = false;
      await this.fanOut();
    }).catch(() => {});
  }

  async add(sub: Sub): Promise<void> {
    await this.run(async () => {
      this.head ??= await this.lastSeq();
      // Catch this subscriber up to the shared head on its own; from there the fan-out carries it.
      while (sub.cursor < this.head) {
        const steps = await stepsAfter(this.sql, this.mind, sub.cursor);
        const upTo = steps.filter((s) => s.seq <= this.head!);
        for (const step of upTo) sub.send({ kind: "step", step });
        if (upTo.length < steps.length || upTo.length === 0) break;
        sub.cursor = upTo[upTo.length - 1]!.seq;
      }
      sub.cursor = Math.max(sub.cursor, this.head);
      this.subs.add(sub);
    });
  }

  private async lastSeq(): Promise<number> {
    const [row] = await this.sql.query<{ last_seq: string | number }>("SELECT last_seq FROM sync_minds WHERE id = $1", [this.mind]);
    return Number(row?.last_seq ?? 0);
  }

  private async fanOut(): Promise<void> {
    if (this.head === undefined || this.subs.size === 0) return;
    for (;;) {
      const steps = await stepsAfter(this.sql, this.mind, this.head);
      for (const step of steps) {
        for (const sub of this.subs) {
          if (step.seq > sub.cursor) {
            sub.cursor = step.seq;
            sub.send({ kind: "step", step });
          }
        }
      }
      const newest = steps[steps.length - 1];
      if (newest) this.head = newest.seq;
      if (steps.length < SYNC_LIMITS.readSteps) break;
    }
    // A link revoked, or gone with its whole mind (lib/server/sync/forget.ts): its followers are told it is revoked.
    const open = new Set((await this.sql.query<{ id: string }>("SELECT id FROM share_links WHERE mind = $1 AND revoked_at IS NULL", [this.mind])).map((r) => r.id));
    for (const sub of this.subs) {
      if (open.has(sub.link)) continue;
      this.subs.delete(sub);
      sub.send({ kind: "revoked" });
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export function openLiveHub(sql: Sql, opts: LiveOptions = {}): LiveHub {
  const pollMs = opts.pollMs ?? 2_000;
  const followers = new Map<string, Follower>();
  let unlisten: Promise<() => Promise<void>> | undefined;

  const listen = () => {
    unlisten ??= sql.listen(SYNC_CHANNEL, (mind) => followers.get(mind)?.wake());
    // A failed LISTEN is retried by the next subscriber; meanwhile the poll carries the streams.
    unlisten.catch((e: Error) => {
      console.error(`live links: LISTEN failed, falling back to polling every ${pollMs} ms: ${e.message}`);
      unlisten = undefined;
    });
    return unlisten.catch(() => undefined);
  };

  return {
    async subscribe(mind, after, subscriber) {
      await listen();
      let f = followers.get(mind);
      if (!f) followers.set(mind, (f = new Follower(sql, mind, pollMs)));
      const follower = f;
      follower.refs++;
      const sub: Sub = { ...subscriber, cursor: after };
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        follower.subs.delete(sub);
        if (--follower.refs === 0 && followers.get(mind) === follower) {
          follower.stop();
          followers.delete(mind);
        }
      };
      try {
        await follower.add(sub);
      } catch (e) {
        leave();
        throw e;
      }
      return leave;
    },
    stats: () => ({ minds: followers.size, subscribers: [...followers.values()].reduce((n, f) => n + f.subs.size, 0) }),
    async close() {
      for (const f of followers.values()) f.stop();
      followers.clear();
      const u = await unlisten?.catch(() => undefined);
      await u?.();
    },
  };
}
