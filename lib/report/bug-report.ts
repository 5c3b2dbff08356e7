// A bug report: one JSON file with what it takes to see what a mind did and
// why it went wrong (the app's version, the browser, the mind's settings,
// every trajectory line and sealed summary as export writes them, and the
// tab's recent worker log), with the key removed from the settings and the
// whole file scrubbed of every key this browser holds and anything shaped
// like a credential (lib/sync/client/scrub). Pure: the data is passed in.
import { TIERS_FILE } from "../context/rollups";
import type { WorkerLogLevel } from "../protocol";
import { MIN_HELD_KEY, scrubber, scrubStepJson } from "../sync/client/scrub";
import { classifyPath, slugify } from "../trajectory/headlong";
import { formatTs } from "../trajectory/schema";
import type { MindSettings } from "../mind/settings/settings";

export const BUG_REPORT_FORMAT = "reverie-bug-report";

/** One line of a tab's recent log (components/runner/runner-store keeps them). */
export interface ReportLogEntry {
  /** Epoch ms. */
  at: number;
  level: WorkerLogLevel;
  /** "runner": the tab's view of the worker; "worker": what the worker said it did. */
  from: "runner" | "worker";
  text: string;
}

export interface BugReportInput {
  /** Epoch ms: when the report is made (its date, in the file name too). */
  now: number;
  appVersion: string;
  userAgent: string;
  mind: MindSettings;
  /** The mind's export (lib/store/exchange/export's entries, as text): trajectory.jsonl and tiers.jsonl files are carried, blobs listed. */
  files: readonly { path: string; data: string }[];
  log: readonly ReportLogEntry[];
  /** Every model key this browser holds (any mind's): each is redacted wherever it appears. */
  heldKeys: readonly string[];
}

export interface BugReport {
  fileName: string;
  /** The report, pretty-printed JSON, already scrubbed. */
  text: string;
}

/** The mind's settings without its key: whether one is set is all that is said of it. */
function settingsOf(mind: MindSettings): Record<string, unknown> {
  const { apiKey, ...model } = mind.model;
  return {
    ...model,
    api_key_set: Boolean(apiKey),
    ...(mind.summary_model ? { summary_model: mind.summary_model } : {}),
    ...(mind.budget ? { budget: mind.budget } : {}),
    pacing: mind.pacing,
    max_iterations: mind.max_iterations,
    permissions: mind.permissions,
  };
}

const linesOf = (text: string) => text.split("\n").filter((l) => l.length > 0);

export function bugReport(input: BugReportInput): BugReport {
  const keys = [...input.heldKeys, ...(input.mind.model.apiKey ? [input.mind.model.apiKey] : [])];
  const scrub = scrubber(keys);
  // Each line scrubbed as the JSON it is (a key written with JSON escapes is still found), untouched lines byte for byte.
  const scrubLine = (line: string) => {
    try {
      return scrubStepJson(line, scrub);
    } catch {
      return scrub(line);
    }
  };

  const trajectories: { path: string; lines: string[] }[] = [];
  const tiers: { path: string; lines: string[] }[] = [];
  const blobs: { path: string; bytes: number }[] = [];
  for (const f of input.files) {
    const role = classifyPath(f.path);
    if (role.kind === "trajectory") trajectories.push({ path: f.path, lines: linesOf(f.data).map(scrubLine) });
    else if (f.path.endsWith(`/${TIERS_FILE}`) || f.path === TIERS_FILE) tiers.push({ path: f.path, lines: linesOf(f.data).map(scrubLine) });
    // Large outputs' whole texts stay out (their first 4096 bytes are in the lines); their names and sizes say what there was.
    else if (role.kind === "blob") blobs.push({ path: f.path, bytes: new TextEncoder().encode(f.data).length });
  }

  const { mind } = input;
  const report = {
    format: BUG_REPORT_FORMAT,
    version: 1,
    created_at: formatTs(input.now),
    app_version: input.appVersion,
    user_agent: input.userAgent,
    mind: { id: mind.id, name: mind.name, persona: mind.persona, created_at: mind.created_at, running: mind.running },
    settings: settingsOf(mind),
    trajectories,
    tiers,
    blobs_left_out: blobs,
    log: input.log.map((e) => ({ at: formatTs(e.at), level: e.level, from: e.from, text: e.text })),
  };
  // Then the whole file, every string in it (names, persona, the log's error messages).
  const clean: unknown = JSON.parse(scrubStepJson(JSON.stringify(report), scrub));
  const text = `${JSON.stringify(clean, null, 2)}\n`;
  const leaked = keys.find((k) => k.length >= MIN_HELD_KEY && text.includes(k));
  // Cannot happen with the scrubber above; if it ever did, no file rather than a file with a key in it.
  if (leaked !== undefined) throw new Error("The bug report still held a key after scrubbing; it was not written.");
  const day = formatTs(input.now).slice(0, 10);
  return { fileName: `reverie-bug-${slugify(scrub(mind.name)) || "mind"}-${day}.json`, text };
}
