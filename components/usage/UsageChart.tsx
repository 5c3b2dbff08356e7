"use client";
// One uPlot bar chart over UTC buckets, drawn in the browser only (uPlot
// needs a canvas). The canvas is hidden from screen readers: the usage table
// beside it says the same in words. Colours follow the page's theme (the
// toggle, or the system while it is on System).
import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useTheme } from "../theme/theme-store";

export interface ChartSeries {
  label: string;
  values: number[];
  /** Mid-tone colours read on light and dark backgrounds alike. */
  colour: string;
}

const HEIGHT = 160;

export function UsageChart({ title, x, series, format, testId }: { title: string; x: number[]; series: ChartSeries[]; format: (v: number) => string; testId: string }) {
  const box = useRef<HTMLDivElement>(null);
  const data = useRef<uPlot.AlignedData>([]);
  data.current = [x.map((t) => t / 1000), ...series.map((s) => s.values)];
  const plot = useRef<uPlot | null>(null);
  const shape = `${title}|${series.map((s) => `${s.label}:${s.colour}`).join(",")}`;
  const dark = useTheme().scheme === "dark";

  // Build the chart once per shape and theme (a theme change rebuilds it); new figures only replace its data.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let cancelled = false;
    let resize: ResizeObserver | null = null;
    const build = async () => {
      const { default: UPlot } = await import("uplot");
      if (cancelled) return;
      plot.current?.destroy();
      const ink = dark ? "#a8a29e" : "#57534e"; // stone-400 / stone-600
      const grid = dark ? "rgba(168,162,158,0.15)" : "rgba(87,83,78,0.12)";
      const bars = UPlot.paths.bars?.({ size: [0.7, 24] });
      const opts: uPlot.Options = {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: {
          // Half a bucket beyond the first and last, so their bars are drawn whole; bars rise from zero.
          x: {
            time: true,
            range: (_u, min, max) => {
              const xs = data.current[0] ?? [];
              const half = xs.length > 1 ? ((xs[1] as number) - (xs[0] as number)) / 2 : 1800;
              return [min - half, max + half];
            },
          },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] },
        },
        axes: [
          { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid } },
          { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid }, size: 60, values: (_u, vals) => vals.map(format) },
        ],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.colour, fill: `${s.colour}99`, paths: bars, points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? "—" : format(v)) }))],
      };
      plot.current = new UPlot(opts, data.current, el);
      // Which theme's colours the drawn chart has (canvas pixels are not in the DOM).
      el.dataset.scheme = dark ? "dark" : "light";
      resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }));
      resize.observe(el);
    };
    void build();
    return () => {
      cancelled = true;
      resize?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // `format` and `series` are read through `shape`: a new array of the same series must not rebuild the chart.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape, dark]);

  useEffect(() => {
    plot.current?.setData(data.current);
  });

  return (
    <figure className="flex flex-col gap-1">
      <figcaption className="text-xs font-medium text-stone-600 dark:text-stone-400">{title}</figcaption>
      <div ref={box} data-testid={testId} aria-hidden className="w-full text-stone-700 dark:text-stone-300" />
    </figure>
  );
}
