"use client";
// The trajectory viewer, for a live mind and for any imported trajectory:
// runs grouped and collapsible, idle stretches folded, bodies and blobs loaded
// on demand, virtualized past a few hundred rows, with the fork tree, search,
// type filters and the selected step kept in the URL.
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { SearchHit, StepSource, TrajectoryRow } from "@/lib/trajectory/source";
import { rowIndexOf, type DisplayRow, type IndexEntry } from "@/lib/trajectory/rows";
import { ContextInspector } from "../inspector/ContextInspector";
import { useShortcut } from "../shortcuts/useShortcut";
import type { InspectTarget } from "../inspector/useSeenContext";
import { ForkTree } from "./ForkTree";
import { SearchBox } from "./SearchBox";
import type { BodyActions } from "./StepBody";
import { StepRow } from "./StepRow";
import { TypeFilter } from "./TypeFilter";
import { useBodyCache, useStepBodies } from "./useStepBodies";
import { useRows, useTypeCounts } from "./useRows";
import { useTrajectoryIndex } from "./useTrajectoryIndex";
import { useViewerUrl } from "./useViewerUrl";

/** Keys that scroll the stream when it has the focus: only these (and the wheel, touch, the scrollbar) are the reader moving. */
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);
/** Up to this many rows are all in the page; beyond, only those on screen. */
const PLAIN_LIMIT = 600;
/**
 * Rows drawn beyond the screen, each side: for a reader's scrolling, and few
 * while the stream is followed. There every batch of new steps moves the
 * window a screenful on, so every row in it is new: each row kept off screen
 * was mounted, measured and painted for nothing, four times a second.
 */
const OVERSCAN = { reading: 12, following: 3 };
/** New steps whose bodies are loaded before they are shown, while following (about a screenful). */
const FOLLOWED_BODIES = 40;

// Memoized: the mind's page re-renders on every status (four a second), and a 10,000-step stream need not.
export const TrajectoryViewer = memo(function TrajectoryViewer({ source, footer }: { source: StepSource; footer?: React.ReactNode }) {
  const [url, setUrl] = useViewerUrl();
  const [trajs, setTrajs] = useState<TrajectoryRow[] | null>(null);
  const trajId = url.traj ?? trajs?.find((t) => !t.parent_traj || !trajs.some((p) => p.traj_id === t.parent_traj))?.traj_id ?? source.root;
  const traj = trajs?.find((t) => t.traj_id === trajId);
  // Following: kept at the newest step as the stream grows and rows are measured.
  const follow = useRef(true);
  const selected = useRef(url.step);
  selected.current = url.step;
  const bodyCache = useBodyCache(source);
  // While following, new steps come with their bodies: each row is drawn once, not as a preview and then again.
  const prepare = useCallback(
    (fresh: IndexEntry[]) => (follow.current && !selected.current ? bodyCache.load(fresh.slice(-FOLLOWED_BODIES).map((e) => e.seq)) : Promise.resolve()),
    [bodyCache],
  );
  const index = useTrajectoryIndex(source, trajId, prepare);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [openFolds, setOpenFolds] = useState<Set<string>>(new Set());
  const [matches, setMatches] = useState<ReadonlySet<string>>(new Set());
  const scroller = useRef<HTMLDivElement>(null);
  // When the reader last scrolled by hand; only their scrolling can stop the following.
  // Never, to begin with: performance.now() starts at the page's load, so 0 would count the first second as the reader's.
  const userScrolledAt = useRef(Number.NEGATIVE_INFINITY);
  const lastTop = useRef(0);
  const list = useRef<HTMLOListElement>(null);
  // "What the model saw", opened from a run's step; it stays open while its links move the stream.
  const [inspecting, setInspecting] = useState<InspectTarget | null>(null);

  useEffect(() => {
    let cancelled = false;
    source.trajectories().then((t) => !cancelled && setTrajs(t));
    return () => {
      cancelled = true;
    };
  }, [source]);

  // Extended as the stream grows: a batch of new steps costs what they cost, not the history.
  const rows = useRows(index.entries, { collapsedRuns: collapsed, openFolds, types: url.types });
  // Changes with the rows only: the virtualizer recomputes every row's position whenever its key function changes.
  const rowKey = useCallback((i: number) => rows[i]?.key ?? i, [rows]);
  // Virtualize a long stream, and a big one from the start (before its older steps have loaded).
  const virtual = rows.length > PLAIN_LIMIT || !index.complete;
  const virtualizer = useVirtualizer({
    count: virtual ? rows.length : 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => 64,
    overscan: follow.current && !url.step ? OVERSCAN.following : OVERSCAN.reading,
    getItemKey: rowKey,
    // Render after the scroll event, not synchronously inside it: scrolling stays on the compositor's beat.
    useFlushSync: false,
  });
  const items = virtual ? virtualizer.getVirtualItems() : [];
  const onScreen = virtual ? items.map((i) => rows[i.index]).filter((r): r is DisplayRow => !!r) : rows;
  const bodies = useStepBodies(bodyCache, onScreen.flatMap((r) => (r.kind === "step" ? [r.entry.seq] : [])));

  const scrollToRow = useCallback(
    (i: number, align: "center" | "end") => {
      if (i < 0) return;
      if (virtual) virtualizer.scrollToIndex(i, { align });
      else scroller.current?.querySelector(`[data-row="${i}"]`)?.scrollIntoView({ block: align === "end" ? "end" : "center" });
    },
    [virtual, virtualizer],
  );

  // Follow the newest steps while the reader is at the bottom: after each
  // render, and whenever the list's height changes (bodies loaded, rows measured).
  // Once a frame at most, just before it is drawn: each write of scrollTop forces a layout, and one
  // batch of new steps brings several renders and resizes (rows, then their bodies, then their sizes).
  const frame = useRef<number | null>(null);
  const stick = useCallback(() => {
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      const el = scroller.current;
      if (el && follow.current && !selected.current) el.scrollTop = el.scrollHeight;
    });
  }, []);
  useLayoutEffect(stick);
  useEffect(() => () => {
    if (frame.current !== null) cancelAnimationFrame(frame.current);
  }, []);
  useEffect(() => {
    const el = list.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(stick);
    ro.observe(el);
    return () => ro.disconnect();
  }, [stick, virtual, index.loaded]);

  // A selected step (deep link, search hit, click): open what hides it, then bring it into view.
  const located = useRef<string | null>(null);
  useEffect(() => {
    const id = url.step;
    if (!id || !index.loaded) return;
    const entry = index.entries.find((e) => e.id === id);
    if (!entry) {
      if (located.current === id) return;
      located.current = id;
      // Not in this trajectory (or not loaded yet): find where it lives.
      source.locate(id).then((where) => {
        if (where && where.traj !== trajId) setUrl({ traj: where.traj });
      });
      return;
    }
    if (entry.run && collapsed.has(entry.run)) {
      setCollapsed((c) => new Set([...c].filter((r) => r !== entry.run)));
      return;
    }
    const at = rowIndexOf(rows, id);
    const row = rows[at];
    if (row?.kind === "fold") {
      setOpenFolds((f) => new Set(f).add(row.entries[0]?.id ?? ""));
      return;
    }
    follow.current = false;
    scrollToRow(at, "center");
  }, [url.step, index.loaded, index.entries, rows, collapsed, source, trajId, setUrl, scrollToRow]);

  const actions: BodyActions = useMemo(
    () => ({
      loadBlob: (ref) => source.blob(traj, ref),
      openTrajectory: (t, step) => setUrl({ traj: t, step: step ?? null }),
      inspect: setInspecting,
    }),
    [source, traj, setUrl],
  );
  const select = useCallback((id: string) => setUrl({ step: id }), [setUrl]);
  // Stable handlers, so the toolbar's memoized parts skip the re-render on every scroll.
  const openTraj = useCallback((t: string) => setUrl({ traj: t, step: null }), [setUrl]);
  const setQuery = useCallback((q: string) => setUrl({ q }), [setUrl]);
  const openHit = useCallback((hit: SearchHit) => setUrl({ traj: hit.traj, step: hit.id }), [setUrl]);
  const setTypes = useCallback((types: string[] | null) => setUrl({ types }), [setUrl]);
  const toggleRun = useCallback((runId: string) => {
    setCollapsed((c) => {
      const n = new Set(c);
      if (!n.delete(runId)) n.add(runId);
      return n;
    });
  }, []);

  // The stream's own shortcuts apply only while it is on screen (a mind's other tabs hide it).
  const shown = () => scroller.current !== null && scroller.current.offsetParent !== null;
  const stepRows = () => rows.filter((r): r is Extract<DisplayRow, { kind: "step" }> => r.kind === "step");
  const move = (by: 1 | -1) => {
    if (!shown()) return false;
    const steps = stepRows();
    const at = steps.findIndex((r) => r.entry.id === url.step);
    const next = steps[by === 1 ? Math.min(steps.length - 1, at + 1) : Math.max(0, at < 0 ? steps.length - 1 : at - 1)];
    if (!next) return false;
    select(next.entry.id);
  };
  useShortcut("j", () => move(1), "Select the next step");
  useShortcut("k", () => move(-1), "Select the previous step");

  // The newest step the type filter shows, even inside a collapsed run or an idle fold (selecting it opens them).
  const jumpNewest = () => {
    const newest = index.entries.findLast((e) => !url.types || url.types.has(e.type));
    if (!newest) return false;
    if (newest.id === url.step) {
      // Already selected: bring it back into view.
      scrollToRow(rowIndexOf(rows, newest.id), "center");
      return;
    }
    select(newest.id);
  };
  useShortcut(["End", "G"], () => (shown() ? jumpNewest() : false), "Jump to the newest step");

  // Escape clears the selection and follows the stream again.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).closest("input,textarea,select")) return;
    if (e.key === "Escape") {
      setUrl({ step: null });
      follow.current = true;
      // What follows are our own scrolls, to the bottom.
      userScrolledAt.current = Number.NEGATIVE_INFINITY;
      stick();
    }
  };

  const renderRow = (row: DisplayRow) =>
    row.kind === "fold" ? (
      <button
        type="button"
        data-testid="idle-fold"
        className="w-full rounded border border-dashed border-amber-300 px-3 py-1 text-left text-xs text-stone-500 dark:text-stone-400 hover:bg-amber-50 dark:hover:bg-amber-950/30"
        onClick={() => setOpenFolds((f) => new Set(f).add(row.entries[0]?.id ?? ""))}
      >
        {row.entries.length} idle steps folded ({row.entries[0]?.ts.slice(11, 19)} – {row.entries[row.entries.length - 1]?.ts.slice(11, 19)}) · show
      </button>
    ) : (
      <StepRow
        entry={row.entry}
        step={bodies.get(row.entry.seq)}
        inRun={row.inRun}
        run={row.run}
        selected={row.entry.id === url.step}
        matched={matches.has(row.entry.id)}
        actions={actions}
        onSelect={select}
        onToggleRun={toggleRun}
      />
    );

  const typeCounts = useTypeCounts(index.entries);
  const hasRuns = typeCounts.has("shellm-run");

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2" onKeyDown={onKeyDown}>
      <div className="flex flex-wrap items-start gap-3">
        {trajs && (trajs.length > 1 || !source.watch) && <ForkTree trajectories={trajs} current={trajId} onOpen={openTraj} />}
        <div className="flex min-w-0 flex-1 flex-col gap-2">
          <SearchBox source={source} initial={url.q} onQuery={setQuery} onHit={openHit} onMatches={setMatches} />
          <TypeFilter counts={typeCounts} selected={url.types} onChange={setTypes} />
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-stone-500 dark:text-stone-400">
            <span data-testid="step-count">
              {index.entries.length} step{index.entries.length === 1 ? "" : "s"}
              {!index.complete && index.loaded ? " (loading older…)" : ""}
            </span>
            {hasRuns && (
              <>
                <button type="button" className="underline" onClick={() => setCollapsed(new Set(index.entries.filter((e) => e.type === "shellm-run").map((e) => e.id)))}>
                  collapse runs
                </button>
                <button type="button" className="underline" onClick={() => setCollapsed(new Set())}>
                  expand runs
                </button>
              </>
            )}
            <button
              type="button"
              data-testid="jump-newest"
              aria-keyshortcuts="End G"
              disabled={index.entries.length === 0}
              onClick={jumpNewest}
              className="ml-auto min-h-10 rounded border border-stone-300 px-2 text-stone-700 hover:bg-stone-100 disabled:opacity-40 sm:min-h-0 sm:py-0.5 dark:border-stone-700 dark:text-stone-300 dark:hover:bg-stone-900"
            >
              Newest ↓
            </button>
          </div>
        </div>
      </div>
      {inspecting && <ContextInspector key={`${inspecting.runId}:${inspecting.stepId ?? ""}`} owner={source.root} target={inspecting} onClose={() => setInspecting(null)} onShowStep={select} />}
      <div
        ref={scroller}
        tabIndex={0}
        className="min-h-0 flex-1 overflow-auto rounded border border-stone-200 p-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 dark:border-stone-800"
        onWheel={() => (userScrolledAt.current = performance.now())}
        onTouchMove={() => (userScrolledAt.current = performance.now())}
        onPointerDown={() => (userScrolledAt.current = performance.now())}
        onKeyDownCapture={(e) => {
          if (SCROLL_KEYS.has(e.key)) userScrolledAt.current = performance.now();
        }}
        onScroll={(e) => {
          const el = e.currentTarget;
          const up = el.scrollTop < lastTop.current;
          lastTop.current = el.scrollTop;
          // Scrolls we cause (following, measuring) must not stop the following.
          if (performance.now() - userScrolledAt.current > 1000) return;
          // Back at the bottom follows again; only moving up leaves it (the stream growing below does not).
          if (el.scrollHeight - el.scrollTop - el.clientHeight < 80) follow.current = true;
          else if (up) follow.current = false;
        }}
      >
        {!index.loaded ? (
          <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>
        ) : virtual ? (
          <ol ref={list} data-testid="thought-stream" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              return (
                <li key={item.key} data-index={item.index} data-row={item.index} ref={virtualizer.measureElement} className="absolute left-0 top-0 w-full pb-2" style={{ transform: `translateY(${item.start}px)` }}>
                  {renderRow(row)}
                </li>
              );
            })}
          </ol>
        ) : (
          <ol ref={list} data-testid="thought-stream" className="flex flex-col gap-2">
            {rows.map((row, i) => (
              <li key={row.key} data-row={i}>
                {renderRow(row)}
              </li>
            ))}
          </ol>
        )}
        {footer}
      </div>
    </div>
  );
});
