"use client";
// A mind shown through a link (/s/<token>): its name, a read-only banner, the
// same trajectory viewer over the server (a guest's: the conversation only),
// and for an invite, what its role may do, that the mind keeps no secrets, a
// box to write to the mind under a name, and an operator's pause, resume and
// stop. Unknown and revoked links look the same.
import Link from "next/link";
import { Suspense, useState, type ReactNode } from "react";
import { MessageBox } from "../mind/MessageBox";
import { TrajectoryViewer } from "../viewer/TrajectoryViewer";
import { useGuestMessaging, useSharedLink, type NewSteps } from "./use-shared-link";
import type { StepSource } from "@/lib/trajectory/source";
import { UnreadLine, useUnread } from "./UnreadMessages";
import { OperatorControls } from "./OperatorControls";
import { SharedMemory } from "./SharedMemory";
import { SharedUsage } from "./SharedUsage";
import { DEFAULT_INVITE_ROLE, NO_SECRETS, ROLE_WORDS } from "@/lib/sharing/roles";
import type { ShareClient } from "@/lib/sharing/client";

export function LinkNotFound() {
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center" data-testid="share-not-found">
      <h1 className="text-xl font-semibold">This link does not exist or was revoked</h1>
      <p className="mt-2 text-sm text-stone-500 dark:text-stone-400">Ask whoever shared it for a new one.</p>
    </main>
  );
}

/** The link's server could not be asked (offline, a 5xx): say why, and offer another try. */
export function LinkError({ message, retry }: { message: string; retry: () => void }) {
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center">
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        The link could not be opened: {message}
      </p>
      <button type="button" onClick={retry} className="mt-3 min-h-10 rounded border border-stone-300 px-3 py-1 text-sm dark:border-stone-700">
        Try again
      </button>
    </main>
  );
}

export function SharedView({ token }: { token: string }) {
  const link = useSharedLink(token);
  const [revokedHere, setRevokedHere] = useState(false);

  if (link.state === "missing") return <LinkNotFound />;
  if (link.state === "error") return <LinkError message={link.message} retry={link.retry} />;
  if (link.state === "loading") return <p className="px-4 py-16 text-center text-sm text-stone-500 dark:text-stone-400">Loading…</p>;

  const { shared } = link;
  const role = shared.role ?? DEFAULT_INVITE_ROLE;
  const revoked = link.revoked || revokedHere;
  const banner =
    shared.kind === "snapshot"
      ? `A snapshot of ${shared.name}'s thought stream, up to step ${shared.at_seq ?? shared.last_seq}. Read-only.`
      : shared.kind === "live"
        ? `${shared.name}'s thought stream, live. Read-only.`
        : shared.role === "guest"
          ? `${shared.name}'s conversations with people, live. You are invited to write to ${shared.name} as a guest.`
          : `${shared.name}'s thought stream, live. You are invited to write to ${shared.name} as ${shared.role === "operator" ? "an operator" : "a member"}.`;

  return (
    <main className="mx-auto flex h-app max-w-5xl flex-col gap-3 px-4 py-3">
      <header className="flex flex-col gap-1 border-b border-stone-200 pb-3 dark:border-stone-800">
        <h1 className="text-xl font-semibold" data-testid="shared-mind-name">
          {shared.name}
        </h1>
        <p data-testid="share-banner" data-link-kind={shared.kind} className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
          {banner}
        </p>
        {shared.kind === "invite" && (
          <p data-testid="invite-may" data-role={role} className="text-xs text-stone-600 dark:text-stone-400">
            With this invite you may {ROLE_WORDS[role]}.
          </p>
        )}
        {!revoked && (shared.kind !== "invite" || role !== "guest") && (
          <Link href={`/replay/s/${token}`} data-testid="replay-link" className="self-start text-sm text-indigo-700 underline dark:text-indigo-300">
            Replay from the first step
          </Link>
        )}
      </header>
      {revoked ? (
        <p role="alert" data-testid="share-revoked" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          This link was revoked by {shared.name}&apos;s human. Nothing more can be read or sent through it.
        </p>
      ) : (
        <>
          {shared.kind === "invite" && role === "operator" ? (
            <OperatorPanes stream={<Stream source={link.source} />} client={link.client} />
          ) : (
            <Stream source={link.source} />
          )}
          {shared.kind === "invite" && (
            <InviteFooter client={link.client} mindName={shared.name} operator={role === "operator"} newSteps={link.newSteps} onRevoked={() => setRevokedHere(true)} />
          )}
        </>
      )}
    </main>
  );
}

function Stream({ source }: { source: StepSource }) {
  return (
    <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
      <TrajectoryViewer source={source} />
    </Suspense>
  );
}

const PANES = [
  { key: "stream", label: "Stream" },
  { key: "memory", label: "Memory" },
  { key: "usage", label: "Usage" },
] as const;
type Pane = (typeof PANES)[number]["key"];

/** An operator sees more than the stream: the mind's memories and goals (to curate) and its spend. Only the pane shown is mounted. */
function OperatorPanes({ stream, client }: { stream: ReactNode; client: ShareClient }) {
  const [pane, setPane] = useState<Pane>("stream");
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2">
      <div role="tablist" aria-label="What to show" className="flex gap-1 border-b border-stone-200 dark:border-stone-800">
        {PANES.map((p) => (
          <button
            key={p.key}
            type="button"
            role="tab"
            id={`shared-tab-${p.key}`}
            data-testid={`shared-tab-${p.key}`}
            aria-selected={pane === p.key}
            aria-controls="shared-pane"
            onClick={() => setPane(p.key)}
            onKeyDown={(e) => {
              // Arrow keys move along the tabs, as in the mind's own page.
              const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
              if (!step) return;
              e.preventDefault();
              const next = PANES[(PANES.findIndex((x) => x.key === pane) + step + PANES.length) % PANES.length] as (typeof PANES)[number];
              setPane(next.key);
              document.getElementById(`shared-tab-${next.key}`)?.focus();
            }}
            className={`min-h-10 px-3 text-sm ${pane === p.key ? "border-b-2 border-indigo-600 font-medium" : "text-stone-600 dark:text-stone-400"}`}
          >
            {p.label}
          </button>
        ))}
      </div>
      <div id="shared-pane" role="tabpanel" aria-labelledby={`shared-tab-${pane}`} className="flex min-h-0 flex-1 flex-col">
        {pane === "stream" ? stream : pane === "memory" ? <SharedMemory client={client} /> : <SharedUsage client={client} />}
      </div>
    </div>
  );
}

/** An invite's footer: an operator's controls, that the mind keeps no secrets, what came for the reader, and the box to write in. */
function InviteFooter({ client, mindName, operator, newSteps, onRevoked }: { client: ShareClient; mindName: string; operator: boolean; newSteps: NewSteps; onRevoked: () => void }) {
  const messaging = useGuestMessaging(client, onRevoked);
  const unread = useUnread(newSteps, messaging.sender ?? "", mindName);
  return (
    <footer className="flex flex-col gap-2 border-t border-stone-200 pt-3 dark:border-stone-800">
      {operator && <OperatorControls client={client} mindName={mindName} />}
      <p data-testid="no-secrets" className="text-xs text-stone-600 dark:text-stone-400">
        {NO_SECRETS}
      </p>
      <UnreadLine unread={unread} />
      <MessageBox mindName={mindName} messaging={messaging} nameTestId="guest-name" />
    </footer>
  );
}
