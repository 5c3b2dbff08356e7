"use client";
// An archive's page with a scoreboard: two tabs, Trajectory and Scoreboard,
// the choice kept in the URL (`tab=`). It opens on the scoreboard, unless the
// address names a step (an evidence link), which opens the trajectory. Without a scoreboard there are no tabs,
// only the trajectory, in the same place (the viewer is not remounted when
// the scoreboard turns up). Both panels stay mounted while hidden: the viewer
// keeps the reader's place, as the mind page's stream does, and the
// scoreboard is small (it is read once) and keeps its chart.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId, type ReactNode } from "react";
import { TabList } from "../tabs/TabList";

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

  const setTab = (t: Tab) => {
    // From the address bar as it is now: the viewer may have changed it since this render.
    const next = new URLSearchParams(window.location.search);
    next.set("tab", t);
    router.replace(`${pathname}?${next}`, { scroll: false });
  };

  const panel = (key: Tab) => (scoreboard ? { role: "tabpanel", id: `${id}-${key}`, "aria-labelledby": `${id}-${key}-tab`, hidden: tab !== key } : {});
  return (
    <>
      {scoreboard && <TabList tabs={TABS} tab={tab} onTab={setTab} idBase={id} label="Archive views" className="flex shrink-0 gap-1 border-b border-stone-200 dark:border-stone-800" />}
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
