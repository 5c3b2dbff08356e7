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
import type { Clock } from "../../mind/ports";
import type { AwayDigest } from "../../sync/client/away-digest";
import { ApiRequestError, OfflineError } from "../../sync/client/http";
import { syncClient } from "../../sync/client/client";
import { homeClient, type HomeClient, type LeaseAnswer } from "../../sync/client/home-client";
import type { ReverieDb } from "../db/db";
import { watchTables } from "../db/watch";
import { pullServerSteps } from "./pull";
import type { SyncRecord } from "../../sync/client/engine";
import { browserSync, getSync, updateSync } from "./sync";

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
  | { where: "another-tab"; holder: string; until: string };

export interface HomeEvents {
  onWhere(where: HomeWhere): void;
  /** What the mind did elsewhere, after a pull brought any of it. */
  onDigest(digest: AwayDigest, extra: { setAside: number }): void;
  /** The lease was lost while this tab ran the mind (or it ran here without one, and is about to take it): stop the loop now. */
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
  let held: { mind: string; token: string; epoch: number; ttl: number } | null = null;
  let waiters: (() => void)[] = [];
  let isReady = false;
  const setReady = (on: boolean) => {
    isReady = on;
    if (on) {
      for (const w of waiters) w();
      waiters = [];
    }
  };

  async function take(): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      let target: Target | null;
      let early: EarlyAsk | null = null;
      try {
        // One read of the record for both: the early ask and the check.
        const rec = await getSync(deps.db, deps.mindId);
        early = askEarly(deps, client, rec);
        target = await leasedMind(deps, client, rec, early);
      } catch (e) {
        // Offline or the server down: the mind runs here (its steps upload when the server is back; fenced if someone took it meanwhile).
        await early?.letGo();
        if (!(e instanceof OfflineError || (e instanceof ApiRequestError && e.status >= 500))) events.onError(`Could not ask the server where the mind lives: ${e instanceof Error ? e.message : String(e)}`);
        events.onWhere({ where: "local" });
        return setReady(true);
      }
      if (!target) {
        events.onWhere({ where: "local" });
        return setReady(true);
      }
      let answer: LeaseAnswer;
      try {
        answer = (await early?.answer) ?? (await client.lease(target.mind, target.token, { holder: deps.holder, ttl_s: target.ttl }));
      } catch (e) {
        events.onError(`Could not take the mind's lease: ${e instanceof Error ? e.message : String(e)}`);
        await deps.clock.sleep(OFFLINE_RETRY_MS, signal);
        continue;
      }
      if (answer.ok) {
        // A loop this tab ran without the lease (it fell back to running here when the server could not be reached) stops
        // first: nothing of this browser's may be written while the server's steps come in (what it wrote is set aside by the
        // pull, and nothing more of it may follow under the new epoch), and the loop starts again from what was pulled.
        if (isReady) {
          setReady(false);
          events.onLost();
        }
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
        held = { ...target, epoch };
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
      // Renew until the lease is lost (or this tab goes).
      while (held && !signal.aborted) {
        await deps.clock.sleep((held.ttl * 1000) / 3, signal);
        if (signal.aborted || !held) break;
        const h: { mind: string; token: string; epoch: number; ttl: number } = held;
        const renewed = await client.lease(h.mind, h.token, { holder: deps.holder, epoch: h.epoch, ttl_s: h.ttl }).catch((e: unknown) => e);
        if (renewed instanceof ApiRequestError && renewed.code === "fenced") {
          // Another home took it (this tab slept past its lease): stop writing now, then ask for it back.
          held = null;
          setReady(false);
          await updateSync(deps.db, deps.mindId, (r) => ({ ...r, epoch: undefined }));
          events.onLost();
          events.onWhere({ where: "server" });
        }
        // Offline: keep running; the next renewal (or the upload's fence) will tell.
      }
    }
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
      // Let the lease go now (this tab is going): the runner need not wait for it to lapse.
      const h = held;
      held = null;
      if (h) void client.release(h.mind, h.token, deps.holder, h.epoch, true).catch(() => undefined);
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
