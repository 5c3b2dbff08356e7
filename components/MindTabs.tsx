"use client";
// Stream, Chat, Files, Timeline or Usage, on a mind's page. The stream stays mounted while
// another tab is shown, so it keeps following new steps and the reader's place in it.
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

const TABS = [
  { key: "stream", label: "Stream" },
  { key: "chat", label: "Chat" },
  { key: "files", label: "Files" },
  { key: "timeline", label: "Timeline" },
  { key: "usage", label: "Usage" },
] as const;
export type MindTab = (typeof TABS)[number]["key"];
type Tab = MindTab;

interface MindTabsProps {
  stream: ReactNode;
  chat: ReactNode;
  files: ReactNode;
  timeline: ReactNode;
  usage: ReactNode;
  /** Given with `onTab`, the page chooses the tab (a timeline mark opens its step in the stream). */
  tab?: Tab;
  onTab?: (tab: Tab) => void;
}

export function MindTabs({ stream, chat, files, timeline, usage, tab: chosen, onTab }: MindTabsProps) {
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
    list.current?.querySelector<HTMLElement>(`[data-tab="${t.key}"]`)?.focus();
  };

  const panel = (key: Tab, content: ReactNode) => (
    <div role="tabpanel" id={`${id}-${key}`} aria-labelledby={`${id}-${key}-tab`} hidden={tab !== key} className={tab === key ? "flex min-h-0 flex-1 flex-col" : "hidden"}>
      {content}
    </div>
  );

  return (
    <>
      <div ref={list} role="tablist" aria-label="Mind views" onKeyDown={onKeyDown} className="flex gap-1 border-b border-stone-200 dark:border-stone-800">
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
            className={`-mb-px border-b-2 px-3 py-1 text-sm ${tab === t.key ? "border-indigo-500 font-medium" : "border-transparent text-stone-500 dark:text-stone-400 hover:text-stone-800 dark:hover:text-stone-200"}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      {panel("stream", stream)}
      {/* Chat, Files, Timeline and Usage only while shown: their live queries read what the stream does not need. */}
      {panel("chat", tab === "chat" ? chat : null)}
      {panel("files", tab === "files" ? files : null)}
      {panel("timeline", tab === "timeline" ? timeline : null)}
      {panel("usage", tab === "usage" ? usage : null)}
    </>
  );
}
