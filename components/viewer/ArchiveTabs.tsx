"use client";
// An archive's page with a scoreboard: two tabs, Trajectory and Scoreboard,
// the choice kept in the URL (`tab=`). It opens on the scoreboard, unless the
// address names a step (an evidence link), which opens the trajectory. Without a scoreboard there are no tabs,
// only the trajectory, in the same place (the viewer is not remounted when
// the scoreboard turns up). Both panels stay mounted while hidden: the viewer
// keeps the reader's place, as the mind page's stream does, and the
// scoreboard is small (it is read once) and keeps its chart.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId, useRef, type KeyboardEvent, type ReactNode } from "react";

const TABS = [
  { key: "trajectory", label: "Trajectory" },
  { key: "scoreboard", label: "Scoreboard" },
] as const;
type Tab = (typeof TABS)[number]["key"];

export function ArchiveTabs({ trajectory, scoreboard }: { trajectory: ReactNode; scoreboard: ReactNode | null }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // An eval run's archive opens on its scoreboard, what it is for; a link to a step (`step=`, no `tab`) opens the trajectory.
  const asked = params.get("tab");
  const tab: Tab = !scoreboard ? "trajectory" : asked === "trajectory" || asked === "scoreboard" ? asked : params.has("step") ? "trajectory" : "scoreboard";
  const id = useId();
  const list = useRef<HTMLDivElement>(null);

  const setTab = (t: Tab) => {
    // From the address bar as it is now: the viewer may have changed it since this render.
    const next = new URLSearchParams(window.location.search);
    next.set("tab", t);
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

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

  const panel = (key: Tab) => (scoreboard ? { role: "tabpanel", id: `${id}-${key}`, "aria-labelledby": `${id}-${key}-tab`, hidden: tab !== key } : {});
  return (
    <>
      {scoreboard && (
        <div ref={list} role="tablist" aria-label="Archive views" onKeyDown={onKeyDown} className="flex shrink-0 gap-1 border-b border-stone-200 dark:border-stone-800">
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
      )}
      <div {...panel("trajectory")} className={tab === "trajectory" ? "flex min-h-0 flex-1 flex-col" : "hidden"}>
        {trajectory}
      </div>
      {scoreboard && (
        <div {...panel("scoreboard")} className={tab === "scoreboard" ? "flex min-h-0 flex-1 flex-col" : "hidden"}>
          {scoreboard}
        </div>
      )}
    </>
  );
}
