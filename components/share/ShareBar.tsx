"use client";
// Sharing a mind, on its page: sync on or off and what it is doing, links to
// create (a snapshot at this step, a live view, an invite to talk as a guest,
// member or operator), and every
// link this browser made, newest first, with who is talking through invites.
import { useEffect, useState } from "react";
import type { LinkInfo, LinkKind } from "@/lib/sharing/wire";
import { DEFAULT_INVITE_ROLE, InviteRole, ROLE_WORDS } from "@/lib/sharing/roles";
import { useShareActions, useSyncStatus } from "@/lib/store/view/hooks";
import { CopyField } from "./CopyField";
import { SyncStatusLine } from "./SyncStatusLine";
import { LinkList } from "./LinkList";

/** How often the server's list (revocations, guests) is read while a link is open. */
const LINKS_POLL_MS = 3000;

const btn = "min-h-10 rounded border border-stone-300 px-2 py-0.5 text-xs sm:min-h-0 hover:bg-stone-100 disabled:opacity-40 dark:border-stone-700 dark:hover:bg-stone-900";

export function ShareBar({ mindId }: { mindId: string }) {
  const status = useSyncStatus(mindId);
  const actions = useShareActions(mindId);
  const [mode, setMode] = useState<"snapshot" | "live">("live");
  const [role, setRole] = useState<InviteRole>(DEFAULT_INVITE_ROLE);
  const [shareUrl, setShareUrl] = useState<string | null>(null);
  const [inviteUrl, setInviteUrl] = useState<string | null>(null);
  const [alertName, setAlertName] = useState("");
  const [alertUrl, setAlertUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState<LinkKind | "sync" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [server, setServer] = useState<LinkInfo[] | null>(null);
  const record = status?.record ?? null;
  const enabled = !!record?.enabled;
  const openLinks = record?.links.filter((l) => !l.revoked_at).length ?? 0;

  useEffect(() => {
    if (!enabled || openLinks === 0) return;
    let stop = false;
    const read = () =>
      actions
        .serverLinks()
        .then((l) => !stop && setServer(l))
        .catch(() => undefined);
    void read();
    const t = setInterval(read, LINKS_POLL_MS);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [actions, enabled, openLinks]);

  async function run<T>(what: LinkKind | "sync", f: () => Promise<T>): Promise<T | undefined> {
    setBusy(what);
    setError(null);
    try {
      return await f();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return undefined;
    } finally {
      setBusy(null);
    }
  }

  const createShare = async () => {
    setShareUrl(null);
    const url = await run(mode, () => actions.create(mode));
    if (url) setShareUrl(url);
  };
  const createInvite = async () => {
    setInviteUrl(null);
    const url = await run("invite", () => actions.create("invite", { role }));
    if (url) setInviteUrl(url);
  };

  const createAlert = async () => {
    setAlertUrl(null);
    const url = await run("alert", () => actions.create("alert", { label: alertName }));
    if (url) setAlertUrl(url);
  };

  return (
    <section aria-label="Sharing" data-testid="share-bar" className="flex flex-col gap-1.5 text-xs">
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            data-testid="sync-toggle"
            checked={enabled}
            disabled={busy !== null || status === undefined}
            onChange={(e) => void run("sync", () => actions.setEnabled(e.target.checked))}
          />
          Sync to this server
        </label>
        <SyncStatusLine status={status} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          Share
          <select
            data-testid="share-mode"
            aria-label="What the link shows"
            value={mode}
            onChange={(e) => setMode(e.target.value === "snapshot" ? "snapshot" : "live")}
            className="rounded border border-stone-300 bg-white px-1 py-0.5 dark:border-stone-700 dark:bg-stone-900"
          >
            <option value="live">live</option>
            <option value="snapshot">snapshot</option>
          </select>
        </label>
        <button type="button" data-testid="share-create" className={btn} disabled={busy !== null} onClick={() => void createShare()}>
          {busy === mode ? "Creating…" : "Create link"}
        </button>
        {shareUrl && <CopyField testId="share-link" label="Share link" value={shareUrl} />}
        <label className="flex items-center gap-1" title={ROLE_WORDS[role]}>
          Invite as
          <select
            data-testid="invite-role"
            aria-label="What the invite's holder may do"
            value={role}
            onChange={(e) => setRole(InviteRole.catch(DEFAULT_INVITE_ROLE).parse(e.target.value))}
            className="rounded border border-stone-300 bg-white px-1 py-0.5 dark:border-stone-700 dark:bg-stone-900"
          >
            {InviteRole.options.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="button" data-testid="invite-create" className={btn} disabled={busy !== null} onClick={() => void createInvite()}>
          {busy === "invite" ? "Creating…" : "Create invite"}
        </button>
        {inviteUrl && <CopyField testId="invite-link" label="Invite link" value={inviteUrl} />}
        {/* On the same row as the other links: a taller share bar leaves the tabs below it less room. */}
        <label className="flex items-center gap-1" title="A link for CI, monitors and bots: it may only post alerts to the mind (POST /api/share/<token>/alerts), tagged as alerts in its stream">
          Alerts from
          <input
            data-testid="alert-name"
            aria-label="What posts to the alert link (its name in the stream)"
            placeholder="CI"
            maxLength={100}
            value={alertName}
            onChange={(e) => setAlertName(e.target.value)}
            className="w-24 rounded border border-stone-300 bg-white px-1 py-0.5 dark:border-stone-700 dark:bg-stone-900"
          />
        </label>
        <button type="button" data-testid="alert-create" className={btn} disabled={busy !== null} onClick={() => void createAlert()}>
          {busy === "alert" ? "Creating…" : "Create alert link"}
        </button>
        {alertUrl && (
          <>
            <CopyField testId="alert-link" label="Alert link" value={alertUrl} />
            <span className="text-stone-600 dark:text-stone-400">
              post to <code className="font-mono">{`${alertUrl.replace("/s/", "/api/share/")}/alerts`}</code> {"{title, body?, severity?}"}
            </span>
          </>
        )}
      </div>
      {error && (
        <p role="alert" data-testid="share-error" className="text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      {record && record.links.length > 0 && (
        <LinkList links={record.links} server={server} onRevoke={(id) => void run("sync", () => actions.revoke(id))} disabled={busy !== null} />
      )}
    </section>
  );
}
