"use client";
import Link from "next/link";
import { Suspense, useState } from "react";
import { useLocalMessaging, useLocalSource, useMind, useMindControls } from "@/lib/store/hooks";
import { ExportButton } from "./ExportButton";
import { NotFound } from "./OwnerList";
import { panicHere, useRunnerState } from "./runner/runner-store";
import { WebContainerStatus } from "./runner/WebContainerStatus";
import { ChatView } from "./chat/ChatView";
import { MessageBox } from "./MessageBox";
import { SettingsPanel } from "./SettingsPanel";
import { SpendSummary } from "./SpendSummary";
import { StatusBar } from "./StatusBar";
import { FilesView, filesReadOnly } from "./files/FilesView";
import { MindTabs, type MindTab } from "./MindTabs";
import { PermissionsSummary } from "./PermissionsSummary";
import { ShareBar } from "./share/ShareBar";
import { TrajectoryViewer } from "./viewer/TrajectoryViewer";
import { TimelineView } from "./timeline/TimelineView";
import { UsageView } from "./usage/UsageView";

export function MindView({ mindId }: { mindId: string }) {
  const mind = useMind(mindId);
  const runner = useRunnerState(mindId);
  const controls = useMindControls(mindId);
  const source = useLocalSource(mindId, "mind");
  const messaging = useLocalMessaging(mindId, mind?.name ?? "");
  // Start and Stop set the flag; the tab that runs the mind (this one or another) follows it.
  const setRun = (on: boolean) => void controls.setRunning(on);
  // Panic stop: this tab ends its worker at once; a viewing tab asks the runner's tab to.
  const panic = () => {
    if (!panicHere(mindId)) void controls.requestPanic();
  };
  const [showSettings, setShowSettings] = useState(false);
  const [tab, setTab] = useState<MindTab>("stream");

  if (mind === null) return <NotFound what="mind" />;

  const partial = runner.partial ? (
    <p data-testid="partial-reply" className="mt-2 whitespace-pre-wrap border-l-2 border-dashed border-indigo-300 pl-3 text-sm text-stone-500 dark:text-stone-400">
      {runner.partial}
    </p>
  ) : null;

  return (
    <main className="mx-auto flex h-screen max-w-5xl flex-col gap-3 px-4 py-3">
      <header className="flex flex-col gap-2 border-b border-stone-200 pb-3 dark:border-stone-800">
        <div className="flex items-baseline gap-3">
          <Link href="/" className="text-sm text-stone-500 dark:text-stone-400 hover:underline">
            ← minds
          </Link>
          <h1 className="text-xl font-semibold">{mind?.name ?? "…"}</h1>
          {mind && (
            <span className="truncate text-xs text-stone-500 dark:text-stone-400">
              {mind.model.provider}/{mind.model.model}
            </span>
          )}
          <span className="ml-auto flex items-center gap-2">
            <button
              type="button"
              data-testid="mind-settings"
              aria-expanded={showSettings}
              onClick={() => setShowSettings((v) => !v)}
              className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"
            >
              Settings
            </button>
            <ExportButton owner={mindId} name={mind?.name ?? "mind"} />
          </span>
        </div>
        {showSettings && mind && <SettingsPanel mind={mind} />}
        <StatusBar status={runner.status} role={runner.role} running={mind?.running} onStart={() => setRun(true)} onStop={() => setRun(false)} onPanic={panic} />
        {mind && <SpendSummary mindId={mindId} budget={mind.budget} />}
        {mind && <PermissionsSummary permissions={mind.permissions} />}
        {mind && <ShareBar mindId={mindId} />}
        {mind?.permissions.webcontainer && runner.role === "runner" && <WebContainerStatus status={runner.runtime} />}
        {runner.fatal && (
          <p role="alert" data-testid="mind-fatal" className="rounded bg-red-50 px-2 py-1 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {runner.fatal}
          </p>
        )}
      </header>
      <MindTabs
        tab={tab}
        onTab={setTab}
        stream={
          <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
            <TrajectoryViewer source={source} footer={partial} />
          </Suspense>
        }
        chat={mind ? <ChatView mindId={mindId} mindName={mind.name} /> : null}
        files={<FilesView mindId={mindId} readOnly={filesReadOnly(mind?.running, runner)} />}
        timeline={
          <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
            <TimelineView mindId={mindId} onShowStream={() => setTab("stream")} />
          </Suspense>
        }
        usage={mind ? <UsageView mind={mind} /> : null}
      />
      <footer className="border-t border-stone-200 pt-3 dark:border-stone-800">{mind && <MessageBox mindName={mind.name} messaging={messaging} />}</footer>
    </main>
  );
}
