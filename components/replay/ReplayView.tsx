"use client";
// A replay of any trajectory (a mind in this browser, an imported archive, a
// shared link): play, pause, speed, a scrubber over its steps, the Timeline
// up to the cursor with a line at it, and the usual viewer following the
// cursor as it follows a live mind. Keys: Space plays or pauses, ← and → step,
// + and - change the speed.
import Link from "next/link";
import { memo, Suspense, useEffect, useMemo } from "react";
import type { StepSource } from "@/lib/trajectory/source";
import { nextSpeed, shownThrough } from "@/lib/trajectory/replay-cursor";
import { timelineOf } from "@/lib/trajectory/timeline";
import { PRESENTING_CONTRAST, PresentationToggle, usePresenting } from "../classroom/presentation";
import { TimelineLanes } from "../timeline/TimelineLanes";
import { TrajectoryViewer } from "../viewer/TrajectoryViewer";
import { ReplayBar } from "./ReplayBar";
import { useReplay, type ReplayControls, type ReplayState } from "./useReplay";

/** On a projector the viewer's own tools (fork tree, search, type filters) are chrome: hidden while presenting. */
const PRESENTING_HIDES = "[&_[data-testid=fork-tree]]:hidden [&_[data-testid=type-filter]]:hidden [&_:has(>[data-testid=step-search])]:hidden";

export interface ReplayViewProps {
  /** null while the owner is being looked up. */
  source: StepSource | null;
  title: string;
  /** Where the reader came from (the mind's page, the archive, the link). */
  back: { href: string; label: string };
}

export function ReplayView({ source, title, back }: ReplayViewProps) {
  const [replay, controls] = useReplay(source);
  const presenting = usePresenting();
  useReplayKeys(replay, controls);

  return (
    <main data-testid="replay" data-presenting={presenting || undefined} className={`mx-auto flex h-app flex-col gap-3 px-4 py-3 ${presenting ? `max-w-none ${PRESENTING_CONTRAST} ${PRESENTING_HIDES}` : "max-w-6xl"}`}>
      <header className="flex flex-wrap items-baseline gap-3 border-b border-stone-200 pb-2 dark:border-stone-800">
        {!presenting && (
          <Link href={back.href} className="text-sm text-stone-500 hover:underline dark:text-stone-400">
            ← {back.label}
          </Link>
        )}
        <h1 className="text-xl font-semibold">
          Replay<span className="font-normal text-stone-500 dark:text-stone-400"> · {title}</span>
        </h1>
        {!presenting && (
          <Link href="/classroom" className="text-sm text-stone-500 hover:underline dark:text-stone-400">
            classroom
          </Link>
        )}
        <span className="ml-auto">
          <PresentationToggle />
        </span>
      </header>
      {replay.state === "loading" && <p className="text-sm text-stone-500 dark:text-stone-400">Loading the trajectory…</p>}
      {replay.state === "error" && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          The trajectory could not be replayed: {replay.message}
        </p>
      )}
      {replay.state === "ready" && (
        <>
          <ReplayBar replay={replay} controls={controls} presenting={presenting} />
          <ReplayTimeline replay={replay} onOpen={(id) => controls.moveTo(shownThrough(replay.load.entries, id) || replay.shown)} />
          <Stream source={replay.source} />
        </>
      )}
    </main>
  );
}

type Ready = Extract<ReplayState, { state: "ready" }>;

/** The viewer re-renders when its source changes, not at every step of play (its watch brings the steps). */
const Stream = memo(function Stream({ source }: { source: StepSource }) {
  return (
    <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
      <TrajectoryViewer source={source} />
    </Suspense>
  );
});

/** The Timeline of the steps up to the cursor, over the whole trajectory's span, with the cursor drawn. */
function ReplayTimeline({ replay, onOpen }: { replay: Ready; onOpen: (stepId: string) => void }) {
  const { entries } = replay.load;
  const cutSeq = entries[replay.shown - 1]?.seq ?? -1;
  const from = Date.parse(entries[0]?.ts ?? "") || 0;
  const to = Math.max(from + 1000, Date.parse(entries[entries.length - 1]?.ts ?? "") || 0);
  const at = replay.shown > 0 ? Date.parse(entries[replay.shown - 1]?.ts ?? "") || from : from;
  const steps = replay.timelineSteps;
  const timeline = useMemo(() => (steps ? timelineOf(steps.filter((s) => s.seq <= cutSeq).map((s) => s.step)) : null), [steps, cutSeq]);
  return (
    <section data-testid="replay-timeline" data-cursor-at={new Date(at).toISOString()} aria-label="Timeline up to the cursor" className="flex flex-col gap-1">
      {timeline ? <TimelineLanes timeline={timeline} from={from} to={to} now={at} onOpen={onOpen} cursor={at} /> : <p className="text-sm text-stone-500 dark:text-stone-400">Drawing the timeline…</p>}
    </section>
  );
}

function useReplayKeys(replay: ReplayState, controls: ReplayControls) {
  const ready = replay.state === "ready";
  const playing = ready && replay.playing;
  const speed = ready ? replay.speed : "100";
  const { step, setPlaying, setSpeed } = controls;
  useEffect(() => {
    if (!ready) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const el = e.target as HTMLElement | null;
      const typing = el?.closest("input:not([type=range]),textarea,select,[contenteditable=true]");
      if (typing) return;
      if (e.key === " ") {
        // A focused button or the scrubber: Space is theirs (a button clicks itself).
        if (el?.closest("button,input")) return;
        setPlaying(!playing);
      } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        // The scrubber moves itself on arrows; the viewer's list scrolls on them only when focused.
        if (el?.closest("input,[role=tablist]")) return;
        step(e.key === "ArrowRight" ? 1 : -1);
      } else if (e.key === "+" || e.key === "=") setSpeed(nextSpeed(speed, 1));
      else if (e.key === "-") setSpeed(nextSpeed(speed, -1));
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [ready, playing, speed, step, setPlaying, setSpeed]);
}
