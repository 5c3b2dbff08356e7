// A mind's bug report from this browser's store: its settings, its export's
// files (lib/store/exchange/export, the same lines as an export), and every key the
// browser holds, so each is scrubbed out. The tab's log, the browser and the
// version come from the page.
import { db as browserDb, type ReverieDb } from "../store/db/db";
import { exportEntries } from "../store/exchange/export";
import { getMind, listMinds } from "../store/minds/minds";
import { bugReport, type BugReport, type ReportLogEntry } from "./bug-report";

export interface ReportContext {
  now: number;
  appVersion: string;
  userAgent: string;
  log: readonly ReportLogEntry[];
}

export async function collectBugReport(db: ReverieDb, mindId: string, context: ReportContext): Promise<BugReport> {
  const mind = await getMind(db, mindId);
  if (!mind) throw new Error(`No mind ${mindId} in this browser to report on.`);
  const files: { path: string; data: string }[] = [];
  const decoder = new TextDecoder();
  for await (const entry of exportEntries(db, mindId)) files.push({ path: entry.path, data: typeof entry.data === "string" ? entry.data : decoder.decode(entry.data) });
  const heldKeys = (await listMinds(db)).flatMap((m) => (m.model.apiKey ? [m.model.apiKey] : []));
  return bugReport({ ...context, mind, files, heldKeys });
}

/** The report as a file to download, from this browser's database. */
export async function collectBugReportFile(mindId: string, context: ReportContext): Promise<{ blob: Blob; fileName: string }> {
  const report = await collectBugReport(browserDb(), mindId, context);
  return { blob: new Blob([report.text], { type: "application/json" }), fileName: report.fileName };
}
