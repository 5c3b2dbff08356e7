"use client";
// The replay's controls: play/pause, a step back and on, the speed, the
// scrubber over every step, where the cursor is, and a note when play cut a
// long silence short.
import { MAX_WAIT_MS, positionText, REPLAY_SPEEDS, type ReplaySpeed } from "@/lib/trajectory/replay-cursor";
import { duration } from "../timeline/marks";
import type { ReplayControls, ReplayState } from "./useReplay";

type Ready = Extract<ReplayState, { state: "ready" }>;

const BUTTON = "min-h-10 rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900";

export function ReplayBar({ replay, controls, presenting }: { replay: Ready; controls: ReplayControls; presenting: boolean }) {
  const { shown, total, playing, speed, lastWait } = replay;
  const position = positionText(replay.load.entries, shown);
  const current = replay.load.entries[shown - 1];
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" data-testid="replay-play" aria-pressed={playing} onClick={() => controls.setPlaying(!playing)} className={`${BUTTON} w-24 font-medium`} disabled={total === 0}>
          {playing ? "Pause" : "Play"}
        </button>
        <button type="button" data-testid="replay-prev" aria-label="Step back" onClick={() => controls.step(-1)} disabled={shown <= 0} className={BUTTON}>
          ←
        </button>
        <button type="button" data-testid="replay-next" aria-label="Step on" onClick={() => controls.step(1)} disabled={shown >= total} className={BUTTON}>
          →
        </button>
        <label className="flex items-center gap-1 text-sm">
          <span className="text-stone-600 dark:text-stone-400">Speed</span>
          <select data-testid="replay-speed" value={speed} onChange={(e) => controls.setSpeed(e.target.value as ReplaySpeed)} className="min-h-10 rounded border border-stone-300 bg-transparent px-2 dark:border-stone-700">
            {REPLAY_SPEEDS.map((s) => (
              <option key={s.key} value={s.key}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <span data-testid="replay-position" data-shown={shown} data-step-id={current?.id ?? ""} aria-live="off" className="ml-auto font-mono text-sm tabular-nums">
          {position}
        </span>
      </div>
      <input
        type="range"
        data-testid="replay-scrubber"
        aria-label="Replay position"
        aria-valuetext={position}
        min={0}
        max={total}
        step={1}
        value={shown}
        onChange={(e) => controls.moveTo(Number(e.target.value))}
        className="w-full accent-indigo-600"
      />
      {
        <p data-testid="replay-compression" className={`text-stone-500 dark:text-stone-400 ${presenting ? "text-sm" : "text-xs"}`}>
          {speed === "step" ? "Step by step: every step gets the same beat, whatever the time between them." : `Real time ÷ ${speed}; any wait longer than ${MAX_WAIT_MS / 1000} s is cut to ${MAX_WAIT_MS / 1000} s, so a day replays in a class period.`}
          {lastWait?.compressed ? ` Just now: ${duration(lastWait.gapMs)} of silence played in ${MAX_WAIT_MS / 1000} s.` : ""}
          {presenting ? "" : " Keys: Space plays or pauses, ← → step, + − speed."}
        </p>
      }
    </div>
  );
}
