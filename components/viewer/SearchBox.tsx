"use client";
// Search over step content and blobs. Enter jumps to the next hit,
// Shift+Enter to the previous one; the query is kept in the URL.
import { memo, useEffect, useRef, useState } from "react";
import type { SearchHit, StepSource } from "@/lib/trajectory/source";
import { useShortcut } from "../shortcuts/useShortcut";

export const SearchBox = memo(function SearchBox(props: {
  source: StepSource;
  initial: string;
  onQuery: (q: string) => void;
  onHit: (hit: SearchHit) => void;
  onMatches: (ids: ReadonlySet<string>) => void;
}) {
  const { source, onHit, onMatches } = props;
  const [q, setQ] = useState(props.initial);
  const [result, setResult] = useState<{ q: string; hits: SearchHit[]; truncated: boolean } | null>(null);
  const [at, setAt] = useState(-1);
  const [busy, setBusy] = useState(false);
  const running = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement>(null);

  // "/" anywhere on the page (outside a text field) jumps to the search box, when the stream is shown.
  useShortcut(
    "/",
    () => {
      const el = input.current;
      if (!el || el.offsetParent === null) return false;
      el.focus();
      el.select();
    },
    "Search the stream",
  );

  async function run(query: string): Promise<SearchHit[]> {
    running.current?.abort();
    const ac = new AbortController();
    running.current = ac;
    setBusy(true);
    try {
      const r = await source.search(query, { signal: ac.signal });
      setResult({ q: query, ...r });
      onMatches(new Set(r.hits.map((h) => h.id)));
      return r.hits;
    } finally {
      if (running.current === ac) setBusy(false);
    }
  }

  // A query from the URL (a shared link) runs once on load, without jumping.
  useEffect(() => {
    if (props.initial.trim()) void run(props.initial.trim()).catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source]);

  async function go(step: 1 | -1) {
    const query = q.trim();
    if (!query) {
      setResult(null);
      onMatches(new Set());
      props.onQuery("");
      return;
    }
    const hits = result?.q === query ? result.hits : await run(query).catch(() => []);
    if (result?.q !== query) props.onQuery(query);
    if (hits.length === 0) return;
    const next = result?.q === query ? (at + step + hits.length) % hits.length : step === 1 ? 0 : hits.length - 1;
    setAt(next);
    const hit = hits[next];
    if (hit) onHit(hit);
  }

  return (
    <div className="flex min-w-0 items-center gap-2">
      <input
        ref={input}
        type="search"
        data-testid="step-search"
        aria-keyshortcuts="/"
        aria-label="Search steps and outputs"
        placeholder="Search steps and outputs ( / )"
        className="min-h-10 w-full min-w-0 max-w-md rounded border border-stone-300 bg-white px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-900"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        title="Enter: next hit · Shift+Enter: previous · Escape: leave the box"
        onKeyDown={(e) => {
          if (e.key === "Escape") e.currentTarget.blur();
          if (e.key === "Enter") {
            e.preventDefault();
            void go(e.shiftKey ? -1 : 1);
          }
        }}
      />
      <span className="shrink-0 text-xs text-stone-500 dark:text-stone-400" data-testid="search-status" aria-live="polite">
        {busy ? "searching…" : result ? (result.hits.length === 0 ? "no matches" : `${at >= 0 ? at + 1 : "–"} / ${result.hits.length}${result.truncated ? "+" : ""}`) : ""}
      </span>
    </div>
  );
});
