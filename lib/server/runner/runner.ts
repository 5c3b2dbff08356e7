import "server-only";
// The server runner: hosts minds whose human turned keep-alive on while no
// tab holds them. Each mind's next wake is a job in the wake queue
// (wakes.ts); any runner process takes any due wake. Taking one, a runner
// takes the mind's lease (the next epoch) and runs the mind's own loop
// (server-home.ts) until its inner life is about to wait: then the wait goes
// back into the queue as the next wake, the lease is let go, and the mind
// leaves memory. So a thousand idle minds cost a thousand queued jobs, and a
// runner that dies loses nothing: its leases lapse and its jobs stay queued.
//
// While it hosts a mind a runner renews the lease and, every second, looks
// for what ends the stretch early: a tab that asked for the lease (it hands
// over: the run is cut, recorded as stopped, and the lease let go), a panic
// stop or keep-alive turned off, a lease another home took (fenced), and
// guests' messages to deliver.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Clock, ModelPort } from "../../mind/ports";
import type { MindSettings } from "../../mind/settings/settings";
import type { HostBoundNetwork } from "./network";
import { systemClock } from "../../system/system";
import type { Sql } from "../db/sql";
import { mindsWithInbound } from "../inbox/inbound";
import { acquireLease, LEASE_WANTED_CHANNEL, releaseLease } from "../state/lease";
import { hostMind, type HostedMind } from "./server-home";
import { openWakeQueue, type Wake, type WakeQueue, type WakeQueueOptions } from "./wakes";

export interface RunnerOptions {
  sql: Sql;
  /** Minds hosted at once by this process (over it, a due wake is put back a little later, for another process or this one). */
  maxMinds: number;
  /** How long a lease lasts without renewal. */
  leaseS: number;
  /** The mind's model on the server (the host's proxy, or its kept key). */
  model: (mindId: string, settings: MindSettings) => Promise<ModelPort>;
  /** The mind's network as the host bounds it. */
  network: (settings: MindSettings) => HostBoundNetwork;
  clock?: Clock;
  /** How often hosted minds are checked for handover, halts, fencing and messages. */
  pollMs?: number;
  wakes?: WakeQueueOptions;
  log?: (line: string) => void;
  /** This process's name in leases (default: runner:<host>:<pid>:<random>). */
  holder?: string;
  /** Told as each due wake is taken, and what became of it (for benchmarks and metrics: how late wakes are taken). */
  onWake?: (e: { mind: string; due: number; takenAt: number; outcome: "hosted" | "delivered" | "busy" | "held" | "dropped" | "failed" }) => void;
}

/** A lease holder that is a runner (tabs name themselves `tab:…`). */
export const RUNNER_HOLDER_PREFIX = "runner:";
/** How often hosted minds are looked at (a tab asking for one waits up to this long before the runner hands it over). */
const POLL_MS = 500;
/** Over capacity, a wake is put back this long. */
const BUSY_RETRY_MS = 5_000;

type MindFlags = { keep_alive: boolean; halted: boolean };

export class Runner {
  readonly holder: string;
  private queue: WakeQueue | null = null;
  private readonly hosted = new Map<string, HostedMind>();
  /** Minds being started (lease taken, not yet hosted): counted against the limit. */
  private readonly starting = new Set<string>();
  /** Hosted minds whose stretch is ending because a tab asked for the lease. */
  private readonly askedFor = new Set<string>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private renewedAt = 0;
  private polling = false;
  /** A tab asked for a hosted mind while a poll was under way: poll again when it ends. */
  private pollAgain = false;
  private unlisten: (() => Promise<void> | void) | null = null;
  private stopped = false;
  private readonly clock: Clock;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: RunnerOptions) {
    this.holder = opts.holder ?? `${RUNNER_HOLDER_PREFIX}${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? ((line) => console.error(line));
  }

  /** Minds this process hosts now. */
  hostedMinds(): { mind: string; epoch: number }[] {
    return [...this.hosted.values()].map((h) => ({ mind: h.mindId, epoch: h.epoch }));
  }

  /** The wake queue this runner takes from (and others may send to). */
  wakes(): WakeQueue {
    if (!this.queue) throw new Error("the runner is not started");
    return this.queue;
  }

  async start(): Promise<void> {
    this.queue = await openWakeQueue(this.opts.sql, this.opts.wakes);
    await this.queue.work((wake) => this.take(wake));
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs ?? POLL_MS);
    this.timer.unref?.();
    // A tab asking for a mind hosted here is heard at once, not at the next poll (a notification lost while the connection
    // was down is caught by the poll).
    this.unlisten = await this.opts.sql
      .listen(LEASE_WANTED_CHANNEL, (mind) => {
        if (this.hosted.has(mind)) void this.poll();
      })
      .catch((e: unknown) => {
        this.log(`runner: cannot listen for tabs asking for their minds (the poll still sees them): ${e instanceof Error ? e.message : String(e)}`);
        return null;
      });
  }

  /** Stop taking wakes; every hosted mind is stopped (its run recorded as stopped), its next wake queued now and its lease let go, so another runner goes on at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.();
    await Promise.all([...this.hosted.values()].map((h) => h.stop()));
    await this.queue?.stop();
  }

  /** A due wake: host the mind if it should live here and its lease is free. */
  private async take(wake: Wake): Promise<void> {
    if (this.stopped) throw new Error("runner stopping"); // the job is retried, by another process or later
    const takenAt = this.clock.now();
    const told = (outcome: "hosted" | "delivered" | "busy" | "held" | "dropped" | "failed") => this.opts.onWake?.({ mind: wake.mind, due: wake.due, takenAt, outcome });
    const { sql } = this.opts;
    const queue = this.wakes();
    const flags = await mindFlags(sql, wake.mind);
    // No longer kept alive, halted, or gone: the wake is dropped (turning keep-alive on queues one again).
    if (!flags?.keep_alive || flags.halted) return told("dropped");
    const here = this.hosted.get(wake.mind);
    if (here || this.starting.has(wake.mind)) {
      // Its watchdog (see below) went off while this process still hosts it: set again for when its lease would lapse if this process died now.
      await queue.set(wake.mind, new Date(this.clock.now() + this.opts.leaseS * 1000 + 1000), "scheduled");
      told("delivered");
      return here ? here.pull() : undefined;
    }
    if (this.hosted.size + this.starting.size >= this.opts.maxMinds) {
      await queue.set(wake.mind, new Date(this.clock.now() + BUSY_RETRY_MS), wake.reason);
      return told("busy");
    }
    const got = await acquireLease(sql, wake.mind, this.holder, this.opts.leaseS);
    if (!got.ok) {
      // Another home (a tab, or another runner) holds it: look again when its lease would lapse; a renewal just puts this off again.
      await queue.set(wake.mind, new Date(Date.parse(got.lease.expires_at) + 1000), wake.reason);
      return told("held");
    }
    // A watchdog while it is hosted here: its wake, queued for when this lease would lapse. Should this process die
    // (kill -9, a crash), another runner takes the mind then; the stretch's end replaces it with the mind's real next wake.
    await queue.set(wake.mind, new Date(Date.parse(got.lease.expires_at) + 1000), "scheduled");
    this.starting.add(wake.mind);
    try {
      told((await this.host(wake, got.lease.epoch)) ? "hosted" : "failed");
    } finally {
      this.starting.delete(wake.mind);
    }
  }

  /** Host the mind under `epoch`; false when it could not start here. */
  private async host(wake: Wake, epoch: number): Promise<boolean> {
    const { sql } = this.opts;
    const mindId = wake.mind;
    let fenced = false;
    let hosted: HostedMind;
    try {
      hosted = await hostMind({
        sql,
        mindId,
        epoch,
        clock: this.clock,
        model: (settings) => this.opts.model(mindId, settings),
        network: this.opts.network,
        dueAt: wake.due,
        onFenced: () => {
          fenced = true;
          void this.hosted.get(mindId)?.stop();
        },
        log: this.log,
      });
    } catch (e) {
      // It cannot run here (no settings synced yet, no caps, no way to pay): say so once, let the lease go, and look again later.
      this.log(`runner: ${mindId} could not start: ${e instanceof Error ? e.message : String(e)}`);
      await releaseLease(sql, mindId, this.holder, epoch).catch(() => undefined);
      await this.wakes().set(mindId, new Date(this.clock.now() + 60_000), "scheduled");
      return false;
    }
    this.hosted.set(mindId, hosted);
    // What came in while it waited, through its way in.
    await hosted.pull();
    void hosted.done
      .catch((e: unknown) => {
        this.log(`runner: ${mindId} ended with an error: ${e instanceof Error ? e.message : String(e)}`);
        return {} as { handedOffAt?: number };
      })
      .then(async ({ handedOffAt }) => {
        this.hosted.delete(mindId);
        const askedFor = this.askedFor.delete(mindId);
        if (fenced) return; // another home holds it: nothing of ours to let go
        const flags = await mindFlags(sql, mindId).catch(() => null);
        const queue = this.queue;
        if (queue && flags?.keep_alive && !flags.halted) {
          // Its next wake: when its pacing says, or at once when this stretch was cut short (a stopping runner, a failure).
          // Handed over to a tab that asked: not at once, or a runner (this one or another) takes the lease back before the
          // tab asks again, and again (a livelock); once the tab holds it, its lease moves this wake on, and should the tab
          // never take it, a runner goes on after a lease's time.
          const next = handedOffAt ?? this.clock.now() + (askedFor ? this.opts.leaseS * 1000 + 1000 : 0);
          await queue.set(mindId, new Date(next), "scheduled").catch((e: unknown) => this.log(`runner: ${mindId}: could not queue its next wake: ${String(e)}`));
        }
        await releaseLease(sql, mindId, this.holder, epoch).catch(() => undefined);
      });
    return true;
  }

  /** Every poll: renew leases (a third of their life), hand over to tabs that asked, stop halted minds, deliver messages. */
  private async poll(): Promise<void> {
    if (this.hosted.size === 0) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    const { sql } = this.opts;
    try {
      const minds = [...this.hosted.keys()];
      if (this.clock.now() - this.renewedAt >= (this.opts.leaseS * 1000) / 3) {
        this.renewedAt = this.clock.now();
        const held = await sql.query<{ mind: string; epoch: string | number }>(
          "UPDATE mind_leases SET expires_at = now() + make_interval(secs => $3), renewed_at = now() WHERE holder = $1 AND mind = ANY($2::text[]) RETURNING mind, epoch",
          [this.holder, minds, this.opts.leaseS],
        );
        const mine = new Map(held.map((r) => [r.mind, Number(r.epoch)]));
        for (const h of this.hosted.values()) if (mine.get(h.mindId) !== h.epoch) void h.stop();
      }
      // What came in first, so an operator's pause is recorded before the stretch it ends.
      for (const mind of await mindsWithInbound(sql, minds)) {
        const h = this.hosted.get(mind);
        if (h) await h.pull();
      }
      const ending = await sql.query<{ mind: string; wanted: boolean }>(
        `SELECT l.mind, l.wanted_at IS NOT NULL AS wanted FROM mind_leases l JOIN sync_minds m ON m.id = l.mind
         WHERE l.holder = $1 AND l.mind = ANY($2::text[]) AND (l.wanted_at IS NOT NULL OR m.halted_at IS NOT NULL OR NOT m.keep_alive)`,
        [this.holder, minds],
      );
      for (const { mind, wanted } of ending) {
        const h = this.hosted.get(mind);
        if (!h) continue;
        this.log(`runner: ${mind}: handing over (a tab asked for it, or it was stopped)`);
        if (wanted) this.askedFor.add(mind);
        void h.stop();
      }
    } catch (e) {
      this.log(`runner: poll failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.polling = false;
      if (this.pollAgain) {
        this.pollAgain = false;
        void this.poll();
      }
    }
  }
}

async function mindFlags(sql: Sql, mind: string): Promise<MindFlags | null> {
  const [row] = await sql.query<{ keep_alive: boolean; halted: boolean }>("SELECT keep_alive, halted_at IS NOT NULL AS halted FROM sync_minds WHERE id = $1", [mind]);
  return row ? { keep_alive: Boolean(row.keep_alive), halted: Boolean(row.halted) } : null;
}
