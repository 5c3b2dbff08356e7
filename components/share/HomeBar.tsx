"use client";
// Where the mind lives, on its page: keep-alive (offered when its server has
// a runner: the mind goes on thinking there while no tab is open), where it
// lives now (this tab, another tab, the server), and, when this tab took it
// back, what it did while it was away, with a link into the stream there.

import { digestLine } from "@/lib/sync/client/away-digest";
import { useKeepAlive, useRunnerOffer, type HomeWhere } from "@/lib/store/view/hooks-home";
import { updateRunner, useRunnerPart } from "../runner/runner-store";
import { useViewerUrl } from "../viewer/useViewerUrl";
import type { MindSettings } from "@/lib/mind/settings/settings";

/** What `mind-home` says: "this tab", "another tab" or "server". */
export function homeLabel(role: string, where: HomeWhere | null): "this tab" | "another tab" | "server" {
  if (role === "viewer") return "another tab";
  if (!where || where.where === "this-tab" || where.where === "local") return "this tab";
  if (where.where === "another-tab") return "another tab";
  return "server";
}

export function HomeBar({ mind, onShowStream }: { mind: MindSettings; onShowStream: () => void }) {
  const offer = useRunnerOffer();
  const keep = useKeepAlive(mind.id);
  const role = useRunnerPart(mind.id, (s) => s.role);
  const where = useRunnerPart(mind.id, (s) => s.home);
  const away = useRunnerPart(mind.id, (s) => s.away);
  const [, setUrl] = useViewerUrl();
  if (!offer) return null;
  const label = homeLabel(role, where);
  const ownKey = mind.model.provider !== "proxy";
  const on = keep.on;
  return (
    <section aria-label="Where the mind lives" data-testid="home-bar" className="flex flex-col gap-1 text-xs">
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-1.5">
          <input type="checkbox" data-testid="keep-alive" checked={on} disabled={keep.busy} onChange={(e) => void keep.set(e.target.checked, ownKey && offer.keeps_keys)} />
          Keep thinking on the server when no tab is open
        </label>
        <span data-testid="mind-home" data-home={label} className="text-stone-600 dark:text-stone-400">
          Lives in: {label}
          {where?.where === "taking" ? " (handing over to this tab…)" : ""}
          {where?.where === "unreachable" ? " (this tab cannot reach it, so it does not run here; trying again…)" : ""}
        </span>
      </div>
      {ownKey && !on && (
        <p className="text-stone-500 dark:text-stone-400">
          {offer.keeps_keys
            ? "It uses its own key: keeping it alive keeps that key on the server, encrypted, until you turn this off."
            : "It uses its own key, and this server does not keep keys: switch it to the host's proxy to keep it alive."}
        </p>
      )}
      {keep.error && (
        <p role="alert" data-testid="keep-alive-error" className="text-red-700 dark:text-red-300">
          {keep.error}
        </p>
      )}
      {away && (
        <p data-testid="away-digest" role="status" className="flex flex-wrap items-center gap-2 rounded bg-indigo-50 px-2 py-1 text-indigo-900 dark:bg-indigo-950 dark:text-indigo-200">
          <span>{digestLine(away.digest)}</span>
          {away.setAside > 0 && <span>{away.setAside} steps this tab wrote after it lost the mind were kept in their own trajectory.</span>}
          {away.digest.firstStep && (
            <button
              type="button"
              data-testid="away-digest-link"
              className="underline"
              onClick={() => {
                setUrl({ step: away.digest.firstStep });
                onShowStream();
              }}
            >
              Show in the stream
            </button>
          )}
          <button type="button" aria-label="Dismiss" className="ml-auto" onClick={() => updateRunner(mind.id, { away: null })}>
            ×
          </button>
        </p>
      )}
    </section>
  );
}
