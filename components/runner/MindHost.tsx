"use client";
// Every mind in this browser thinks while any page of the app is open in
// this tab, not only while its own page is: the host keeps one runner per
// mind for the life of the tab. Sync likewise: a synced mind keeps uploading
// (and fetching its guests' messages) from whichever tab holds its lock.
import type { ReactNode } from "react";
import { useMinds, useSyncRunner } from "@/lib/store/view/hooks";
import { MindRunner } from "./MindRunner";

export function MindHost({ children }: { children: ReactNode }) {
  const minds = useMinds();
  return (
    <>
      {minds?.map((m) => (
        <MindRunner key={m.id} mindId={m.id} shouldRun={m.running} webcontainer={m.permissions.webcontainer} networkAllow={m.permissions.network.allow} panicAt={m.panic_at} />
      ))}
      {minds?.map((m) => <SyncRunner key={`sync:${m.id}`} mindId={m.id} />)}
      {children}
    </>
  );
}

function SyncRunner({ mindId }: { mindId: string }) {
  useSyncRunner(mindId);
  return null;
}
