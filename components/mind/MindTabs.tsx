"use client";
// The tabs of a mind's page. The stream stays mounted while another tab is
// shown, so it keeps following new steps and the reader's place in it; every
// other panel mounts only while shown, since its live queries read what the
// stream does not need.
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

const TABS = [
  { key: "stream", label: "Stream" },
  { key: "chat", label: "Chat" },
  { key: "timeline", label: "Timeline" },
  { key: "usage", label: "Usage" },
  { key: "memory", label: "Memory" },
  { key: "files", label: "Files" },
  { key: "context", label: "Context" },
  { key: "settings", label: "Settings" },
] as const;
export type MindTab = (typeof TABS)[number]["key"];
type Tab = MindTab;

type MindTabsProps = { [K in Tab]: ReactNode } & {
  /** Given with `onTab`, the page chooses the tab (a timeline mark opens its step in the stream). */
  tab?: Tab;
  onTab?: (tab: Tab) => void;
};

export function MindTabs({ tab: chosen, onTab, ...panels }: MindTabsProps) {
  const [own, setOwn] = useState<Tab>("stream");
  const tab = chosen ?? own;
  const setTab = (t: Tab) => (onTab ? onTab(t) : setOwn(t));
  const id = useId();
  const list = useRef<HTMLDivElement>(null);

  // Arrow keys move between the tabs (and choose them), as the ARIA tabs pattern has it.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = TABS.findIndex((t) => t.key === tab);
    const next = e.key === "ArrowRight" ? at + 1 : e.key === "ArrowLeft" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? TABS.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const t = TABS[(next + TABS.length) % TABS.length];
    if (!t) return;
    setTab(t.key);
    const el = list.current?.querySelector<HTMLElement>(`[data-tab="${t.key}"]`);
    el?.focus();
    // On a narrow screen the list scrolls sideways: bring the chosen tab into it.
    el?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  };

  return (
    <>
      {/* On a phone the eight tabs scroll sideways inside the list; the page itself never does. */}
      <div ref={list} role="tablist" aria-label="Mind views" onKeyDown={onKeyDown} className="flex shrink-0 gap-1 overflow-x-auto border-b border-stone-200 dark:border-stone-800">
        {TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            id={`${id}-${t.key}-tab`}
            data-tab={t.key}
            data-testid={`tab-${t.key}`}
            aria-selected={tab === t.key}
            aria-controls={`${id}-${t.key}`}
            tabIndex={tab === t.key ? 0 : -1}
            onClick={() => setTab(t.key)}
            className={`-mb-px shrink-0 whitespace-nowrap border-b-2 px-3 py-1 text-sm min-h-10 sm:min-h-0 ${tab === t.key ? "border-indigo-500 font-medium" : "border-transparent text-stone-500 dark:text-stone-400 hover:text-stone-800 dark:hover:text-stone-200"}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      {TABS.map(({ key }) => (
        <div key={key} role="tabpanel" id={`${id}-${key}`} aria-labelledby={`${id}-${key}-tab`} hidden={tab !== key} className={tab === key ? "flex min-h-0 flex-1 flex-col" : "hidden"}>
          {key === "stream" || tab === key ? panels[key] : null}
        </div>
      ))}
    </>
  );
}
