// Where a synced mind lives, as the tab that runs it (holds its Web Lock)
// keeps it: the tab holds the mind's lease while it runs it, so the server's
// runner can take over when the tab goes (keep-alive), and take it back when
// the tab returns. Only a synced mind on a server with a runner, whose human
// turned keep-alive on (or that is leased already), takes a lease; any other
// mind runs in its tab as it always did.
//
// Taking the mind: ask for the lease (a runner holding it is asked to hand
// over; the tab asks again every half second), then pull what the server
// wrote (its steps, then its state) before the tab's own loop starts, and
// tell what it did while the tab was away. Holding it: renew at a third of
// its life. Losing it (the tab slept past it and a runner took over): stop
// the loop at once, then ask again, since the tab is open.
//
// One writer without exception: while this browser knows the mind is kept
// alive, the tab runs it only under the lease, so every wake it writes
// carries the epoch. It never falls back to running it here when the server
// cannot be reached (it asks again), a loop it ran while keep-alive was off
// stops the moment it learns keep-alive is on, and a lease it cannot renew
// stops the loop when it would lapse. Leaving, it uploads what it wrote, then
// lets the lease go naming its newest step, which the server waits for
// before another home may take the next epoch.
import type { Clock } from "../../mind/ports";
import type { AwayDigest } from "../../sync/client/away-digest";
import { ApiRequestError, OfflineError } from "../../sync/client/http";
import { syncClient } from "../../sync/client/client";
import { homeClient, type HomeClient, type LeaseAnswer } from "../../sync/client/home-client";
import type { ReverieDb } from "../db/db";
import { watchTables } from "../db/watch";
import { pullServerSteps } from "./pull";
import type { SyncRecord } from "../../sync/client/engine";
import { browserSync, getSync, newestStep, updateSync } from "./sync";

export type HomeWhere =
  /** Not synced, or no runner on its server: it lives in this browser only. */
  | { where: "local" }
  /** This tab holds the lease and runs the mind. */
  | { where: "this-tab"; epoch: number }
  /** Asking for the lease (a runner was asked to hand over). */
  | { where: "taking"; holder: string }
  /** The server's runner holds it (or will, when its last tab's lease lapses). */
  | { where: "server" }
  /** Another tab (another browser, or a tab here that slept) holds the lease. */
  | { where: "another-tab"; holder: string; until: string }
  /** Kept alive, and this tab cannot reach its server (or renew its lease): it does not run here, and asks again. */
  | { where: "unreachable" };

export interface HomeEvents {
  onWhere(where: HomeWhere): void;
  /** What the mind did elsewhere, after a pull brought any of it. */
  onDigest(digest: AwayDigest, extra: { setAside: number }): void;
  /** The lease was lost (or lapses unrenewed) while this tab ran the mind, or it ran here without one and keep-alive is on: stop the loop now. */
  onLost(): void;
  onError(message: string): void;
}

export interface HomeDeps {
  db: ReverieDb;
  mindId: string;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  clock: Clock;
  ids: { uuid(): string };
  /** This browser's name in leases (`tab:<random>`): a reloaded tab takes its own lease back at the next epoch, fencing the page it replaced. */
  holder: string;
}

/** While a runner hands the mind over, the tab asks again this often. */
const RETRY_MS = 150;
const OTHER_TAB_POLL_MS = 5_000;
const OFFLINE_RETRY_MS = 2_000;
/** A mind that lives only here looks again this often at whether it should take a lease. */
const LOCAL_RECHECK_MS = 30_000;

type Target = { mind: string; token: string; ttl: number };

/**
 * Does this mind take a lease? Synced, a runner on its server, and keep-alive on (or leased already by someone).
 * `early`: the lease this tab asked for before knowing (askEarly); it is let go again when the answer is no.
 */
async function leasedMind(deps: HomeDeps, client: HomeClient, rec: SyncRecord | null, early: EarlyAsk | null): Promise<Target | null> {
  if (!rec?.enabled || !rec.server_mind || !rec.write_token) return null;
  const [runner, state] = await Promise.all([client.runner(), syncClient(deps.fetch).state(rec.server_mind, rec.write_token)]);
  const keepAlive = (runner && state.home?.keep_alive) ?? false;
  // The lease length is kept only while the server says the mind is kept alive: what askEarly goes by.
  const leaseS = keepAlive && runner ? runner.lease_s : undefined;
  if (rec.keep_alive !== keepAlive || rec.lease_s !== leaseS) await updateSync(deps.db, deps.mindId, (r) => ({ ...r, keep_alive: keepAlive, lease_s: leaseS }));
  if (!runner || !keepAlive) {
    // Asked too soon (keep-alive was turned off elsewhere, or the runner is gone): let that lease go before deciding.
    const answer = await early?.answer;
    await early?.letGo();
    if (!runner || !state.home?.lease || answer?.ok) return null;
  }
  return { mind: rec.server_mind, token: rec.write_token, ttl: runner.lease_s };
}

/**
 * The lease, asked for at once while leasedMind() checks whether it should be: for a mind its server last said was
 * kept alive (leasedMind then kept the lease length), and still kept alive here. A reopened tab so gets its mind a
 * round trip sooner. Keep-alive just switched on in this tab waits for the server's word (no lease length yet).
 */
type EarlyAsk = NonNullable<ReturnType<typeof askEarly>>;

function askEarly(deps: HomeDeps, client: HomeClient, rec: SyncRecord | null) {
  if (!rec?.enabled || !rec.keep_alive || !rec.server_mind || !rec.write_token || !rec.lease_s) return null;
  const { server_mind: mind, write_token: token } = rec;
  const answer = client.lease(mind, token, { holder: deps.holder, ttl_s: rec.lease_s }).catch(() => null);
  return {
    answer,
    /** Let it go (the server could not say whether the mind takes a lease: it runs here, as any mind then does). */
    letGo: async () => {
      const a = await answer;
      if (a?.ok) await client.release(mind, token, deps.holder, a.lease.epoch).catch(() => undefined);
    },
  };
}

/**
 * Keep this tab's claim on the mind until `signal` aborts. `ready()` resolves
 * when the tab may run the mind (at once for a mind that takes no lease);
 * after a loss it resolves again once the lease is back.
 */
export function keepHome(deps: HomeDeps, events: HomeEvents, signal: AbortSignal) {
  const client = homeClient(deps.fetch);
  /** The lease this tab holds; `sentAt`: when the request that last took or renewed it went out (its life is counted from there, to be safe). */
  type Held = Target & { epoch: number; sentAt: number };
  let held: Held | null = null;
  let waiters: (() => void)[] = [];
  let isReady = false;
  const setReady = (on: boolean) => {
    isReady = on;
    if (on) {
      for (const w of waiters) w();
      waiters = [];
    }
  };
  /** A loop this tab runs stops now (no lease, or one that lapses unrenewed): nothing more of it may be written. */
  const stopLoop = () => {
    if (!isReady) return;
    setReady(false);
    events.onLost();
  };
  const unreachable = (e: unknown) => e instanceof OfflineError || (e instanceof ApiRequestError && e.status >= 500);

  async function take(): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      let rec: SyncRecord | null = null;
      let target: Target | null;
      let early: EarlyAsk | null = null;
      const askedAt = deps.clock.now();
      try {
        // One read of the record for both: the early ask and the check.
        rec = await getSync(deps.db, deps.mindId);
        // Kept alive: a loop this tab ran while keep-alive was off stops first (a runner may take the mind at any moment now).
        if (rec?.keep_alive) stopLoop();
        early = askEarly(deps, client, rec);
        target = await leasedMind(deps, client, rec, early);
      } catch (e) {
        await early?.letGo();
        if (!unreachable(e)) events.onError(`Could not ask the server where the mind lives: ${e instanceof Error ? e.message : String(e)}`);
        if (rec?.keep_alive) {
          // Kept alive: never run here without the lease (the server goes on with it once a lease lapses); ask again.
          events.onWhere({ where: "unreachable" });
          await deps.clock.sleep(OFFLINE_RETRY_MS, signal);
          continue;
        }
        // Not kept alive, as far as this browser knows: it runs here (its steps upload when the server is back; fenced if someone took it meanwhile).
        events.onWhere({ where: "local" });
        return setReady(true);
      }
      if (!target) {
        events.onWhere({ where: "local" });
        return setReady(true);
      }
      // The server keeps it alive (this browser may have just learnt it): from now on it runs here only under the lease. A loop
      // this tab ran without one stops before anything is pulled (what it wrote past the server's line is set aside by the pull).
      stopLoop();
      let answer: LeaseAnswer;
      try {
        answer = (await early?.answer) ?? (await client.lease(target.mind, target.token, { holder: deps.holder, ttl_s: target.ttl }));
      } catch (e) {
        events.onError(`Could not take the mind's lease: ${e instanceof Error ? e.message : String(e)}`);
        if (unreachable(e)) events.onWhere({ where: "unreachable" });
        await deps.clock.sleep(OFFLINE_RETRY_MS, signal);
        continue;
      }
      if (answer.ok) {
        const epoch = answer.lease.epoch;
        await updateSync(deps.db, deps.mindId, (r) => ({ ...r, epoch }));
        try {
          // What the server wrote while it held the mind: its steps, then its state, before this tab's loop starts.
          const pulled = await pullServerSteps(deps.db, deps.mindId, client, target, deps.ids);
          await browserSync(deps.db, deps.mindId).engine.pullState();
          if (pulled.digest) events.onDigest(pulled.digest, { setAside: pulled.setAside });
        } catch (e) {
          events.onError(`Could not bring back what the mind did elsewhere: ${e instanceof Error ? e.message : String(e)}; trying again`);
          await client.release(target.mind, target.token, deps.holder, epoch).catch(() => undefined);
          await deps.clock.sleep(OFFLINE_RETRY_MS, signal);
          continue;
        }
        held = { ...target, epoch, sentAt: askedAt };
        events.onWhere({ where: "this-tab", epoch });
        return setReady(true);
      }
      const refused = answer;
      if (refused.handingOver || refused.holder.startsWith("runner:")) {
        events.onWhere({ where: "taking", holder: refused.holder });
        await deps.clock.sleep(RETRY_MS, signal);
      } else {
        events.onWhere({ where: "another-tab", holder: refused.holder, until: refused.expiresAt });
        await deps.clock.sleep(OTHER_TAB_POLL_MS, signal);
      }
    }
  }

  /**
   * Renew at a third of the lease's life until it is lost or this tab goes. A renewal that does not get through (offline,
   * the server down) is tried again; once the lease would have lapsed unrenewed the loop stops (another home may take it
   * then), and runs again if a later renewal finds it still this tab's (nobody took the next epoch meanwhile).
   */
  async function renew(h: Held): Promise<void> {
    let nextAt = h.sentAt + (h.ttl * 1000) / 3;
    while (held === h && !signal.aborted) {
      await deps.clock.sleep(Math.max(0, Math.min(nextAt, isReady ? h.sentAt + h.ttl * 1000 : Infinity) - deps.clock.now()), signal);
      if (signal.aborted || held !== h) return;
      if (deps.clock.now() >= nextAt) {
        const sentAt = deps.clock.now();
        const renewed = await client.lease(h.mind, h.token, { holder: deps.holder, epoch: h.epoch, ttl_s: h.ttl }).catch((e: unknown) => e);
        if (held !== h) return;
        if (renewed instanceof ApiRequestError && renewed.code === "fenced") {
          // Another home took it (this tab slept past its lease): stop writing now, then ask for it back.
          held = null;
          stopLoop();
          // Only now, with the loop stopped, does the record forget the epoch: a wake written meanwhile still carried it.
          await updateSync(deps.db, deps.mindId, (r) => ({ ...r, epoch: undefined }));
          events.onWhere({ where: "server" });
          return;
        }
        if (!(renewed instanceof Error)) {
          h.sentAt = sentAt;
          nextAt = sentAt + (h.ttl * 1000) / 3;
          if (!isReady) {
            // It had lapsed unrenewed, yet nobody took the next epoch: still this tab's, with nothing new to pull.
            events.onWhere({ where: "this-tab", epoch: h.epoch });
            setReady(true);
          }
          continue;
        }
        nextAt = deps.clock.now() + Math.min((h.ttl * 1000) / 3, OFFLINE_RETRY_MS);
      }
      if (isReady && deps.clock.now() >= h.sentAt + h.ttl * 1000) {
        // Unrenewed past its life: another home may take it now, so nothing more is written here until a renewal gets through.
        stopLoop();
        events.onWhere({ where: "unreachable" });
      }
    }
  }

  /** Cut short by recheck(): keep-alive turned on here, or sync switched on. */
  let nudge = new AbortController();

  async function hold(): Promise<void> {
    while (!signal.aborted) {
      await take();
      if (!held) {
        // It lives here only: look again now and then (keep-alive may be turned on from another device), or when nudged.
        await deps.clock.sleep(LOCAL_RECHECK_MS, AbortSignal.any([signal, nudge.signal]));
        if (nudge.signal.aborted) nudge = new AbortController();
        continue;
      }
      await renew(held);
    }
  }

  /**
   * Leaving (this tab goes, its worker with it): what it wrote goes up first, then the lease goes, naming the newest step
   * this browser holds. The server lets the lease go once it holds that step (or when the lease would lapse anyway), so
   * the next home's first step comes after this tab's last.
   */
  async function letGo(h: Held): Promise<void> {
    await browserSync(deps.db, deps.mindId).engine.push().catch(() => undefined);
    const last = await newestStep(deps.db, deps.mindId).catch(() => undefined);
    await client.release(h.mind, h.token, deps.holder, h.epoch, true, last).catch(() => undefined);
  }

  void hold();
  // Keep-alive or sync switched (from any tab of this browser): look again at once.
  let shape = "";
  const sub = watchTables(deps.db, ["settings"], () => getSync(deps.db, deps.mindId)).subscribe(
    (r) => {
      const next = `${r?.enabled}:${r?.keep_alive}`;
      if (shape && next !== shape && !held) nudge.abort();
      shape = next;
    },
    () => undefined,
  );
  signal.addEventListener("abort", () => sub.unsubscribe(), { once: true });
  signal.addEventListener(
    "abort",
    () => {
      const h = held;
      held = null;
      if (h) void letGo(h);
    },
    { once: true },
  );

  return {
    /** Resolves when this tab may run the mind. */
    ready(): Promise<void> {
      if (isReady) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    /** Keep-alive changed or sync was switched on: look again at whether the mind takes a lease. */
    recheck(): void {
      if (!held) nudge.abort();
    },
    /** Stop (or panic stop) in this tab: the server's runner must not take over when the lease lapses. Start clears it. */
    async halt(halted: boolean): Promise<void> {
      const rec = await getSync(deps.db, deps.mindId);
      if (!rec?.server_mind || !rec.write_token || !rec.keep_alive) return;
      await client.halt(rec.server_mind, rec.write_token, halted).catch(() => undefined);
    },
  };
}
export type HomeKeeper = ReturnType<typeof keepHome>;
