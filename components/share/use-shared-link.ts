"use client";
// A share link as the page sees it: what the link is (or that it is not), the
// viewer's remote source over it, whether it was revoked while open, and, for
// an invite, sending messages under a name remembered in this browser.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { SharedMind } from "@/lib/sharing/wire";
import { pageEvents, pageShareClient } from "@/lib/sharing/browser";
import { ApiRequestError } from "@/lib/sync/client/http";
import { type ShareClient } from "@/lib/sharing/client";
import { InviteRevokedError, savedGuestName, saveGuestName, sendAsGuest } from "@/lib/sharing/guest";
import { remoteSource } from "@/lib/sharing/remote-source";
import type { Messaging } from "@/lib/store/view/hooks";
import type { StepSource } from "@/lib/trajectory/source";
import type { StepLine } from "@/lib/trajectory/headlong";

/** Subscribe to each new step the link's live stream brings; returns the unsubscribe. */
export type NewSteps = (listener: (step: StepLine) => void) => () => void;

export type SharedLink =
  | { state: "loading" }
  | { state: "missing" }
  | { state: "error"; message: string; retry: () => void }
  | { state: "ready"; shared: SharedMind; source: StepSource; client: ShareClient; revoked: boolean; newSteps: NewSteps };

export function useSharedLink(token: string): SharedLink {
  const client = useMemo(() => pageShareClient(token), [token]);
  const [attempt, setAttempt] = useState(0);
  const [shared, setShared] = useState<SharedMind | null>(null);
  const [failure, setFailure] = useState<"missing" | string | null>(null);
  const [revoked, setRevoked] = useState(false);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  useEffect(() => {
    let cancelled = false;
    setFailure(null);
    client
      .mind()
      .then((m) => !cancelled && setShared(m))
      .catch((e: unknown) => {
        if (cancelled) return;
        if (e instanceof ApiRequestError && e.status === 404) setFailure("missing");
        else setFailure(e instanceof Error ? e.message : String(e));
      });
    return () => {
      cancelled = true;
    };
  }, [client, attempt]);

  const listeners = useRef(new Set<(step: StepLine) => void>());
  const newSteps = useCallback<NewSteps>((listener) => {
    listeners.current.add(listener);
    return () => listeners.current.delete(listener);
  }, []);
  const source = useMemo(
    () =>
      shared
        ? remoteSource({ client, shared, openEvents: pageEvents, onRevoked: () => setRevoked(true), onStep: (step) => listeners.current.forEach((l) => l(step)) })
        : null,
    [client, shared],
  );

  if (failure === "missing") return { state: "missing" };
  if (failure) return { state: "error", message: failure, retry };
  if (!shared || !source) return { state: "loading" };
  return { state: "ready", shared, source, client, revoked, newSteps };
}

/** A guest writing through an invite, under the name this browser remembers. */
export function useGuestMessaging(client: ShareClient, onRevoked: () => void): Messaging {
  const [sender, setSenderState] = useState<string | undefined>(undefined);
  useEffect(() => setSenderState(savedGuestName()), []);
  return useMemo(
    () => ({
      sender,
      setSender: (name) => {
        setSenderState(name);
        saveGuestName(name);
      },
      send: async (content) => {
        try {
          await sendAsGuest(client, sender ?? "", content);
        } catch (e) {
          if (e instanceof InviteRevokedError) onRevoked();
          throw e;
        }
      },
    }),
    [sender, client, onRevoked],
  );
}
