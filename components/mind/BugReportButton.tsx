"use client";
// Download a bug report for a mind: one JSON file with the app's version, this
// browser, the mind's settings without its key, every trajectory line and
// sealed summary, and this tab's recent worker log, scrubbed of every key this
// browser holds (lib/report).
import { collectBugReportFile } from "@/lib/report/collect";
import pkg from "@/package.json";
import { DownloadButton } from "./DownloadButton";
import { runnerLog } from "../runner/runner-store";

export function BugReportButton({ mindId }: { mindId: string }) {
  return (
    <DownloadButton
      testId="bug-report"
      label="Bug report"
      busyLabel="Collecting…"
      what="Bug report"
      title="Download a bug report: settings (no key), the trajectory and this tab's recent log, with keys scrubbed"
      make={() => collectBugReportFile(mindId, { now: Date.now(), appVersion: pkg.version, userAgent: navigator.userAgent, log: runnerLog(mindId) })}
    />
  );
}
