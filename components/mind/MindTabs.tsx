"use client";
// The tabs of a mind's page. The stream stays mounted while another tab is
// shown, so it keeps following new steps and the reader's place in it; every
// other panel mounts only while shown, since its live queries read what the
// stream does not need.
import { useId, useState, type ReactNode } from "react";
import { TabList } from "../tabs/TabList";

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

  return (
    <>
      {/* On a phone the eight tabs scroll sideways inside the list; the page itself never does. */}
      <TabList tabs={TABS} tab={tab} onTab={setTab} idBase={id} label="Mind views" className="flex shrink-0 gap-1 overflow-x-auto border-b border-stone-200 dark:border-stone-800" />
      {TABS.map(({ key }) => (
        <div key={key} role="tabpanel" id={`${id}-${key}`} aria-labelledby={`${id}-${key}-tab`} hidden={tab !== key} className={tab === key ? "flex min-h-0 flex-1 flex-col" : "hidden"}>
          {key === "stream" || tab === key ? panels[key] : null}
        </div>
      ))}
    </>
  );
}
