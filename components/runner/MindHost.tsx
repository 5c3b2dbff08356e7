"use client";
// Every mind in this browser thinks while any page of the app is open in
// this tab, not only while its own page is: the host keeps one runner per
// mind for the life of the tab.
import type { ReactNode } from "react";
import { useMinds } from "@/lib/store/hooks";
import { MindRunner } from "./MindRunner";

export function MindHost({ children }: { children: ReactNode }) {
  const minds = useMinds();
  return (
    <>
      {minds?.map((m) => <MindRunner key={m.id} mindId={m.id} shouldRun={m.running} webcontainer={m.permissions.webcontainer} panicAt={m.panic_at} />)}
      {children}
    </>
  );
}
