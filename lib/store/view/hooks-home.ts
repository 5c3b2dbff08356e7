// Where a synced mind lives (this tab, another tab, the server's runner), for
// the tab that runs it and for the page that shows it; and keep-alive, its
// switch. Bound to this browser's database and the page's own origin.
"use client";
import { useEffect, useState } from "react";
import type { RunnerInfo, ServerHome } from "../../sync/wire";
import { syncClient } from "../../sync/client/client";
import { homeClient } from "../../sync/client/home-client";
import { db } from "../db/db";
import { getMind } from "../minds/minds";
import { keepHome, type HomeEvents, type HomeKeeper } from "../sync/home";
import { browserSync, getSync, updateSync } from "../sync/sync";
import { systemClock, systemIds } from "../../system/system";

export type { HomeKeeper, HomeWhere } from "../sync/home";

const clock = systemClock;

const HOLDER_KEY = "reverie-lease-holder";

/**
 * This browser's name in leases. One per browser, not per page load: only one
 * tab here runs a mind (its Web Lock), and a reloaded tab takes its own lease
 * back at once, at the next epoch (which fences the page it replaced), instead
 * of waiting for it to lapse.
 */
function browserHolder(): string {
  try {
    const known = localStorage.getItem(HOLDER_KEY);
    if (known) return known;
    const made = `tab:${systemIds.uuid()}`;
    localStorage.setItem(HOLDER_KEY, made);
    return made;
  } catch {
    return `tab:${systemIds.uuid()}`;
  }
}

/** This tab's claim on a mind's lease, while it runs the mind (lib/store/sync/home.ts). */
export function keepMindHome(mindId: string, events: HomeEvents, signal: AbortSignal): HomeKeeper {
  const holder = browserHolder();
  return keepHome({ db: db(), mindId, fetch: (input, init) => fetch(input, init), clock, ids: systemIds, holder }, events, signal);
}

/** Whether this mind's server keeps minds thinking while no tab is open (undefined while asking; null: it does not). */
export function useRunnerOffer(): RunnerInfo | null | undefined {
  const [info, setInfo] = useState<RunnerInfo | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    homeClient((i, init) => fetch(i, init))
      .runner()
      .then((r) => live && setInfo(r), () => live && setInfo(null));
    return () => {
      live = false;
    };
  }, []);
  return info;
}

/**
 * Keep-alive, as the server has it: read once (and after each change), and
 * the switch. Turning it on syncs the mind first (creating it on the server),
 * sends its state (its settings, without any key), then asks; `withKey` also
 * hands over the mind's own model key, kept encrypted for the runner.
 */
export function useKeepAlive(mindId: string) {
  const [home, setHome] = useState<ServerHome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** The switch as its human just set it, until the server says (so the checkbox follows the click at once). */
  const [pending, setPending] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      const rec = await getSync(db(), mindId);
      if (!rec?.server_mind || !rec.write_token) return;
      const state = await syncClient((i, init) => fetch(i, init)).state(rec.server_mind, rec.write_token);
      if (live) setHome(state.home ?? null);
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [mindId]);

  const set = async (on: boolean, withKey: boolean) => {
    setBusy(true);
    setPending(on);
    setError(null);
    try {
      const { engine } = browserSync(db(), mindId);
      await engine.enable();
      // The lease length goes with the server's last word: the home keeper asks early only once it has heard it again.
      // Keep-alive itself is recorded here once the server says so (below): that is the home keeper's cue to stop
      // running the mind without a lease and take it, and before then the server would tell it keep-alive is off.
      await updateSync(db(), mindId, (r) => ({ ...r, ...(on ? {} : { keep_alive: false }), lease_s: undefined }));
      if (on) {
        await engine.push();
        await engine.pushState();
      }
      const rec = await getSync(db(), mindId);
      if (!rec?.server_mind || !rec.write_token) throw new Error("The mind could not be synced to this server.");
      const mind = await getMind(db(), mindId);
      const apiKey = on && withKey ? mind?.model.apiKey : undefined;
      const next = await homeClient((i, init) => fetch(i, init)).keepAlive(rec.server_mind, rec.write_token, { on, ...(apiKey ? { api_key: apiKey } : {}) });
      await updateSync(db(), mindId, (r) => ({ ...r, keep_alive: next.keep_alive }));
      setHome(next);
    } catch (e) {
      // Refused (it could not pay there): the record says off again.
      await updateSync(db(), mindId, (r) => ({ ...r, keep_alive: false })).catch(() => undefined);
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
      setPending(null);
    }
  };
  return { home, on: pending ?? home?.keep_alive ?? false, error, busy, set };
}
