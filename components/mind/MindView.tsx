"use client";
import Link from "next/link";
import { Suspense, useMemo, useRef, useState } from "react";
import { useLocalMessaging, useLocalSource, useMind, useMindControls } from "@/lib/store/view/hooks";
import { BugReportButton } from "./BugReportButton";
import { ExportButton } from "./ExportButton";
import { replayHref } from "../replay/ReplaySources";
import { NotFound } from "../home/OwnerList";
import { panicHere, useRunnerPart } from "../runner/runner-store";
import { WebContainerStatus } from "../runner/WebContainerStatus";
import { ChatView } from "../chat/ChatView";
import { ContextTab } from "../context-tab/ContextTab";
import { MemoryView } from "../memory/MemoryView";
import { MessageBox } from "./MessageBox";
import { SettingsPanel } from "../settings/SettingsPanel";
import { SpendSummary } from "./SpendSummary";
import { StatusBar } from "./StatusBar";
import { FilesView, filesReadOnly } from "../files/FilesView";
import { MindTabs, type MindTab } from "./MindTabs";
import { PermissionsSummary } from "../settings/PermissionsSummary";
import { ShareBar } from "../share/ShareBar";
import { HomeBar } from "../share/HomeBar";
import { TrajectoryViewer } from "../viewer/TrajectoryViewer";
import { TimelineView } from "../timeline/TimelineView";
import { UsageView } from "../usage/UsageView";

export function MindView({ mindId }: { mindId: string }) {
  const mind = useMind(mindId);
  // Only what the page's frame shows: the status (four a second while the mind runs) re-renders its own bar.
  const role = useRunnerPart(mindId, (s) => s.role);
  const fatal = useRunnerPart(mindId, (s) => s.fatal);
  const runtime = useRunnerPart(mindId, (s) => s.runtime);
  const controls = useMindControls(mindId);
  const source = useLocalSource(mindId, "mind");
  const messaging = useLocalMessaging(mindId, mind?.name ?? "");
  // Start and Stop set the flag; the tab that runs the mind (this one or another) follows it.
  const setRun = (on: boolean) => void controls.setRunning(on);
  // Panic stop: this tab ends its worker at once; a viewing tab asks the runner's tab to.
  const panic = () => {
    if (!panicHere(mindId)) void controls.requestPanic();
  };
  const [tab, setTab] = useState<MindTab>("stream");
  // The header's Settings button opens the Settings tab; pressed again, it goes back to where the reader was.
  const beforeSettings = useRef<MindTab>("stream");
  const toggleSettings = () => {
    if (tab === "settings") return setTab(beforeSettings.current);
    beforeSettings.current = tab;
    setTab("settings");
  };

  // One element for the mind's life: the partial reply re-renders itself, not the stream around it.
  const partial = useMemo(() => <PartialReply mindId={mindId} />, [mindId]);
  if (mind === null) return <NotFound what="mind" />;


  return (
    // On a phone (under the sm breakpoint) the header may grow tall: it scrolls within itself, so the tabs keep their room,
    // and every button in it is at least 40 px tall for a finger.
    <main className="mx-auto flex h-app w-full max-w-5xl flex-col gap-3 px-3 py-3 sm:px-4">
      <header className="flex max-h-[45vh] shrink-0 flex-col gap-2 overflow-y-auto border-b border-stone-200 pb-3 sm:max-h-none sm:overflow-visible dark:border-stone-800 [&_button]:min-h-10 [&_select]:min-h-10 sm:[&_button]:min-h-0 sm:[&_select]:min-h-0">
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-2">
          <Link href="/" className="inline-flex min-h-10 items-center text-sm text-stone-500 hover:underline sm:min-h-0 dark:text-stone-400">
            ← minds
          </Link>
          <h1 className="min-w-0 break-words text-xl font-semibold">{mind?.name ?? "…"}</h1>
          {mind && (
            <span className="min-w-0 max-w-full truncate text-xs text-stone-500 dark:text-stone-400">
              {mind.model.provider}/{mind.model.model}
            </span>
          )}
          <span className="ml-auto flex flex-wrap items-center gap-2">
            <button
              type="button"
              data-testid="mind-settings"
              aria-pressed={tab === "settings"}
              onClick={toggleSettings}
              className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"
            >
              Settings
            </button>
            <ExportButton owner={mindId} name={mind?.name ?? "mind"} />
            <Link
              href={replayHref.mind(mindId)}
              data-testid="replay-link"
              className="inline-flex min-h-10 items-center rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 sm:min-h-0 dark:border-stone-700 dark:hover:bg-stone-900"
            >
              Replay
            </Link>
            <BugReportButton mindId={mindId} />
          </span>
        </div>
        <MindStatusBar mindId={mindId} running={mind?.running} onStart={() => setRun(true)} onStop={() => setRun(false)} onPanic={panic} />
        {mind && <SpendSummary mindId={mindId} budget={mind.budget} />}
        {mind && <PermissionsSummary permissions={mind.permissions} />}
        {mind && <ShareBar mindId={mindId} />}
        {mind && <HomeBar mind={mind} onShowStream={() => setTab("stream")} />}
        {mind?.permissions.webcontainer && role === "runner" && <WebContainerStatus status={runtime} />}
        {fatal && (
          <p role="alert" data-testid="mind-fatal" className="rounded bg-red-50 px-2 py-1 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {fatal}
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
        memory={<MemoryView mindId={mindId} running={mind?.running === true} />}
        files={<MindFiles mindId={mindId} running={mind?.running} />}
        timeline={
          <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
            <TimelineView mindId={mindId} onShowStream={() => setTab("stream")} />
          </Suspense>
        }
        usage={mind ? <UsageView mind={mind} /> : null}
        context={
          <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
            <ContextTab mindId={mindId} onShowStream={() => setTab("stream")} />
          </Suspense>
        }
        settings={mind ? <SettingsPanel key={mind.id} mind={mind} /> : null}
      />
      <footer className="border-t border-stone-200 pt-3 dark:border-stone-800">{mind && <MessageBox mindName={mind.name} messaging={messaging} />}</footer>
    </main>
  );
}

function MindStatusBar({ mindId, ...props }: { mindId: string; running: boolean | undefined; onStart: () => void; onStop: () => void; onPanic: () => void }) {
  const status = useRunnerPart(mindId, (s) => s.status);
  const role = useRunnerPart(mindId, (s) => s.role);
  return <StatusBar status={status} role={role} {...props} />;
}

/** The files tab, read-only by the runner's state (mounted only while shown). */
function MindFiles({ mindId, running }: { mindId: string; running: boolean | undefined }) {
  const state = useRunnerPart(mindId, (s) => s.status.state);
  const role = useRunnerPart(mindId, (s) => s.role);
  return <FilesView mindId={mindId} readOnly={filesReadOnly(running, { role, status: { state } })} />;
}

/** The model's reply as it streams in (the runner posts it at most four times a second). */
function PartialReply({ mindId }: { mindId: string }) {
  const partial = useRunnerPart(mindId, (s) => s.partial);
  return partial ? (
    <p data-testid="partial-reply" className="mt-2 whitespace-pre-wrap border-l-2 border-dashed border-indigo-300 pl-3 text-sm text-stone-500 dark:text-stone-400">
      {partial}
    </p>
  ) : null;
}
