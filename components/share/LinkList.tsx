"use client";
// The links this browser made, newest first: what each shows, its URL, whether
// it is revoked, and for an invite, who has written through it.
import type { LinkInfo } from "@/lib/sharing/wire";
import { DEFAULT_INVITE_ROLE, ROLE_WORDS } from "@/lib/sharing/roles";
import type { LocalLink } from "@/lib/sync/client/engine";

const KIND_LABEL = { snapshot: "snapshot", live: "live", invite: "invite", alert: "alert" } as const;
const when = (iso: string) => new Date(iso).toLocaleString();

export function LinkList({ links, server, onRevoke, disabled }: { links: LocalLink[]; server: LinkInfo[] | null; onRevoke: (id: string) => void; disabled: boolean }) {
  const byId = new Map(server?.map((l) => [l.id, l]));
  return (
    <ul aria-label="Links to this mind" data-testid="share-links" className="flex max-h-32 flex-col gap-1 overflow-auto">
      {links.map((l) => {
        const info = byId.get(l.id);
        const revoked = l.revoked_at ?? info?.revoked_at ?? null;
        const role = l.kind === "invite" ? (l.role ?? info?.role ?? DEFAULT_INVITE_ROLE) : null;
        return (
          <li key={l.id} data-testid="share-link-item" data-link-kind={l.kind} data-role={role ?? undefined} data-revoked={revoked ? "true" : "false"} className="flex flex-wrap items-center gap-2">
            <span className="rounded bg-stone-100 px-1 dark:bg-stone-800" title={role ? `Its holder may ${ROLE_WORDS[role]}.` : undefined}>
              {KIND_LABEL[l.kind]}
              {role ? ` · ${role}` : ""}
              {l.kind === "snapshot" && l.at_seq !== null ? ` @${l.at_seq}` : ""}
            </span>
            <span className={`min-w-0 max-w-full truncate font-mono ${revoked ? "text-stone-600 dark:text-stone-400 line-through" : ""}`} title={l.url}>
              {l.url}
            </span>
            <span className="text-stone-500 dark:text-stone-400">made {when(l.created_at)}</span>
            {revoked ? (
              <span className="text-stone-500 dark:text-stone-400">revoked {when(revoked)}</span>
            ) : (
              <button
                type="button"
                data-testid="share-revoke"
                aria-label={`Revoke the ${l.kind} link made ${when(l.created_at)}`}
                disabled={disabled}
                onClick={() => onRevoke(l.id)}
                className="rounded border border-red-300 px-2 py-0.5 text-red-700 hover:bg-red-50 disabled:opacity-40 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950"
              >
                Revoke
              </button>
            )}
            {l.kind === "invite" && info && (
              <span data-testid="invite-guests" className="text-stone-600 dark:text-stone-400">
                {info.guests.length === 0 ? "nobody has written yet" : info.guests.map((g) => `${g.name} (${g.messages} message${g.messages === 1 ? "" : "s"}, last ${when(g.last_at)})`).join(" · ")}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
