import "server-only";
// Each mind's next wake on the server, as a job in a PostgreSQL job queue
// (pg-boss), not a timer of our own: any runner process takes any due wake,
// a process that dies loses nothing (the job stays queued), and a wake is
// taken by one process only. One queued wake per mind: setting it again
// moves it (pg-boss's upsert by singleton key), so pacing can push it back
// and a message can pull it to now.
//
// pg-boss speaks to the database through our Sql (PGlite or PostgreSQL alike,
// no socket or second pool): a statement with parameters is a query, a
// script without is exec. Due wakes are found by polling (every half second
// by default: the lateness a wake may have); the queue's own tables live in
// a schema of their own, which pg-boss creates and migrates itself.
import { PgBoss, type Job } from "pg-boss";
import type { Sql } from "../db/sql";

export type WakeReason = "scheduled" | "message" | "alarm";

export interface Wake {
  mind: string;
  reason: WakeReason;
  /** When it was due (ms since the epoch). */
  due: number;
}

export interface WakeQueue {
  /** The mind's next wake at `at`, replacing the one it had. */
  set(mind: string, at: Date, reason: WakeReason): Promise<void>;
  /** Wake the mind as soon as a runner can (a message, an alarm that is due). */
  now(mind: string, reason: WakeReason): Promise<void>;
  /** Wake the mind at `at` at the latest: a wake queued sooner stays as it is (an alert storm's end, which must not put off its pacing's wake). */
  by(mind: string, at: Date, reason: WakeReason): Promise<void>;
  /** The mind has no next wake (it stopped, or moved to a tab). */
  clear(mind: string): Promise<void>;
  /** Take due wakes until stop(), `handle` once per wake; a wake whose handler throws is retried. */
  work(handle: (wake: Wake) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const QUEUE = "mind-wake";
export const WAKE_SCHEMA = "reverie_wakes";

export interface WakeQueueOptions {
  /** How often due wakes are looked for, in seconds (at least 0.5). */
  pollSeconds?: number;
  /** Wakes taken at once by this process. */
  batchSize?: number;
  onError?: (e: Error) => void;
}

export async function openWakeQueue(sql: Sql, opts: WakeQueueOptions = {}): Promise<WakeQueue> {
  const boss = new PgBoss({
    db: {
      executeSql: async (text: string, values?: unknown[]) => ({ rows: values?.length ? await sql.query(text, values) : await sql.exec(text) }),
    },
    schema: WAKE_SCHEMA,
    // The queue's own upkeep (expiring, archiving) runs in every process; it is cheap and idempotent.
    supervise: true,
    schedule: false,
    ...(sql.dialect === "pglite" ? { backend: "pglite" as const } : {}),
  });
  boss.on("error", (e: Error) => (opts.onError ?? ((err: Error) => console.error(`wakes: ${err.message}`)))(e));
  await boss.start();
  // stately: one queued and one active job per mind at most; a second send for the same mind is ignored, upsert moves it.
  await boss.createQueue(QUEUE, { policy: "stately" });
  const place = (mind: string, at: Date, reason: WakeReason) =>
    boss.upsert(QUEUE, { mind, reason, due: at.getTime() }, { singletonKey: mind, startAfter: at });

  return {
    async set(mind, at, reason) {
      await place(mind, at, reason);
    },
    async now(mind, reason) {
      await place(mind, new Date(), reason);
    },
    async by(mind, at, reason) {
      const queued = await boss.findJobs<Wake>(QUEUE, { key: mind, queued: true });
      if (queued.some((j) => new Date(j.startAfter).getTime() <= at.getTime())) return;
      await place(mind, at, reason);
    },
    async clear(mind) {
      const jobs = await boss.findJobs<Wake>(QUEUE, { key: mind, queued: true });
      if (jobs.length) await boss.cancel(QUEUE, jobs.map((j) => j.id));
    },
    async work(handle) {
      await boss.work<Wake>(QUEUE, { pollingIntervalSeconds: opts.pollSeconds ?? 0.5, batchSize: opts.batchSize ?? 20 }, async (jobs: Job<Wake>[]) => {
        // One throwing handler fails the whole batch's jobs, which pg-boss then retries: each wake is its own.
        await Promise.all(jobs.map((j) => handle(j.data)));
      });
    },
    stop: () => boss.stop({ graceful: true, timeout: 5_000 }),
  };
}
