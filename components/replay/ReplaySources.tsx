"use client";
// The three things a replay can play, each through the StepSource its own
// page already uses: a mind in this browser, an imported archive, a shared link.
import { useArchive, useLocalSource, useMind } from "@/lib/store/view/hooks";
import { NotFound } from "../home/OwnerList";
import { LinkError, LinkNotFound } from "../share/SharedView";
import { useSharedLink } from "../share/use-shared-link";
import { ReplayView } from "./ReplayView";

/** Where each replay lives (the mind page, the archive and the shared page link here). */
export const replayHref = {
  mind: (mindId: string) => `/replay/mind/${mindId}`,
  archive: (archiveId: string) => `/replay/view/${archiveId}`,
  shared: (token: string) => `/replay/s/${token}`,
};

export function ReplayMind({ id }: { id: string }) {
  const mind = useMind(id);
  const source = useLocalSource(id, "mind");
  if (mind === null) return <NotFound what="mind" />;
  return <ReplayView source={mind ? source : null} title={mind?.name ?? "…"} back={{ href: `/mind/${id}`, label: "the mind" }} />;
}

export function ReplayArchive({ id }: { id: string }) {
  const archive = useArchive(id);
  const source = useLocalSource(id, "archive");
  if (archive === null) return <NotFound what="imported trajectory" />;
  return <ReplayView source={archive ? source : null} title={archive?.name ?? "…"} back={{ href: `/view/${id}`, label: "the archive" }} />;
}

export function ReplayShared({ token }: { token: string }) {
  const link = useSharedLink(token);
  if (link.state === "missing") return <LinkNotFound />;
  if (link.state === "error") return <LinkError message={link.message} retry={link.retry} />;
  if (link.state === "ready" && link.revoked)
    return (
      <main className="mx-auto max-w-xl px-4 py-16 text-center">
        <p role="alert" data-testid="share-revoked" className="text-sm text-red-800 dark:text-red-200">
          This link was revoked by {link.shared.name}&apos;s human. Nothing more can be read through it.
        </p>
      </main>
    );
  const ready = link.state === "ready";
  return <ReplayView source={ready ? link.source : null} title={link.state === "ready" ? link.shared.name : "…"} back={{ href: `/s/${token}`, label: "the shared mind" }} />;
}
