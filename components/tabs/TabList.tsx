"use client";
// A row of tabs as the ARIA tabs pattern has it: arrow keys, Home and End
// move between them and choose them, only the chosen one is in the tab
// order, and each names the panel it controls (`<idBase>-<key>`). The mind's
// page and an archive's page both use it; each keeps its own panels.
import { useRef, type KeyboardEvent } from "react";

export interface TabSpec<K extends string> {
  key: K;
  label: string;
}

export function TabList<K extends string>({ tabs, tab, onTab, idBase, label, className }: { tabs: readonly TabSpec<K>[]; tab: K; onTab: (key: K) => void; idBase: string; label: string; className: string }) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.findIndex((t) => t.key === tab);
    const next = e.key === "ArrowRight" ? at + 1 : e.key === "ArrowLeft" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const t = tabs[(next + tabs.length) % tabs.length];
    if (!t) return;
    onTab(t.key);
    const el = list.current?.querySelector<HTMLElement>(`[data-tab="${t.key}"]`);
    el?.focus();
    // On a narrow screen a list may scroll sideways: bring the chosen tab into it.
    el?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  };
  return (
    <div ref={list} role="tablist" aria-label={label} onKeyDown={onKeyDown} className={className}>
      {tabs.map((t) => (
        <button
          key={t.key}
          type="button"
          role="tab"
          id={`${idBase}-${t.key}-tab`}
          data-tab={t.key}
          data-testid={`tab-${t.key}`}
          aria-selected={tab === t.key}
          aria-controls={`${idBase}-${t.key}`}
          tabIndex={tab === t.key ? 0 : -1}
          onClick={() => onTab(t.key)}
          className={`-mb-px shrink-0 whitespace-nowrap border-b-2 px-3 py-1 text-sm min-h-10 sm:min-h-0 ${tab === t.key ? "border-indigo-500 font-medium" : "border-transparent text-stone-500 dark:text-stone-400 hover:text-stone-800 dark:hover:text-stone-200"}`}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
