"use client";
// One line under the status bar, for a mind whose human switched real Node
// on: whether the page's WebContainer is there, and if not, why (the mind
// goes on with the built-in shell either way).
import type { RuntimeStatus } from "@/lib/shell/ports";

function statusText(status: RuntimeStatus): string {
  switch (status.state) {
    case "ready":
      return "Node: ready (WebContainer)";
    case "booting":
      return "Node: booting…";
    case "off":
      return "Node: starts with the mind";
    case "unavailable":
      return `Node unavailable — ${status.reason}. The mind keeps the built-in shell.`;
  }
}

export function WebContainerStatus({ status }: { status: RuntimeStatus }) {
  const warn = status.state === "unavailable";
  return (
    <p data-testid="webcontainer-status" data-state={status.state} className={`text-xs ${warn ? "text-amber-700 dark:text-amber-300" : "text-stone-500 dark:text-stone-400"}`}>
      {statusText(status)}
    </p>
  );
}
