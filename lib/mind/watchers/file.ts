// A watcher's file, self/watchers/NAME.sh (issue 24, part 4): a header of
// comment lines, then the bash it runs. The header names the step types it
// runs after (`# on: thought, message`, required) and whether it is on
// (`# enabled: no (why)`; absent: it is). The whole file is the script: the
// header is bash comments. Read by the runner (lib/mind/watchers/watchers.ts) and the
// `watch` command, which writes it. Pure.
import { KNOWN_KINDS } from "../../trajectory/schema";

/** A watcher's name: its file is self/watchers/NAME.sh (lib/shell/self/files.ts WATCHER_FILE). */
export const WATCHER_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** The step types a watcher may run after: every kind of step. */
export const WATCHER_TYPES: readonly string[] = Object.keys(KNOWN_KINDS);

/** Where a watcher's observations come from, by name: an observation with this source never starts a watcher (no loops). */
export const watcherSource = (name: string) => `watcher:${name}`;
export const WATCHER_SOURCE_PREFIX = "watcher:";

/** Longest reason kept in a `# enabled: no (…)` line. */
const WHY_CHARS = 200;

export type WatcherHeader = { ok: true; on: string[]; enabled: boolean; why?: string } | { ok: false; error: string };

const DIRECTIVE = /^#\s*(on|enabled)\s*:\s*(.*?)\s*$/i;

/** The header: the leading lines that start with '#'. */
function headerLines(text: string): string[] {
  const lines = text.split("\n");
  const end = lines.findIndex((l) => !l.startsWith("#"));
  return end < 0 ? lines : lines.slice(0, end);
}

/** What a watcher's header says, or why it cannot run. */
export function parseWatcher(text: string): WatcherHeader {
  let on: string | undefined;
  let enabled: string | undefined;
  for (const line of headerLines(text)) {
    const m = DIRECTIVE.exec(line);
    if (!m) continue;
    const key = (m[1] ?? "").toLowerCase();
    if (key === "on") on ??= m[2] ?? "";
    else enabled ??= m[2] ?? "";
  }
  if (on === undefined) return { ok: false, error: "its header has no '# on: TYPES' line (the step types it runs after)" };
  const types = parseTypes(on);
  if (typeof types === "string") return { ok: false, error: types };
  if (enabled === undefined) return { ok: true, on: types, enabled: true };
  const e = /^(yes|no)\b\s*(?:\((.*)\))?$/i.exec(enabled);
  if (!e) return { ok: false, error: `its '# enabled:' line says '${enabled}'; it is 'yes', or 'no (why)'` };
  if ((e[1] ?? "").toLowerCase() === "yes") return { ok: true, on: types, enabled: true };
  return { ok: true, on: types, enabled: false, ...(e[2] ? { why: e[2] } : {}) };
}

/** Step types written as `thought, message` (commas or spaces), or what is wrong with them. */
export function parseTypes(list: string): string[] | string {
  const types = [...new Set(list.split(/[\s,]+/).filter(Boolean))];
  if (!types.length) return "it names no step types to run after (e.g. '# on: thought')";
  const unknown = types.filter((t) => !WATCHER_TYPES.includes(t));
  if (unknown.length) return `${unknown.map((t) => `'${t}'`).join(", ")} ${unknown.length > 1 ? "are not step types" : "is not a step type"} (they are: ${WATCHER_TYPES.join(", ")})`;
  return types;
}

/** A new watcher's file: its header, then its script (ending with a newline). */
export function watcherText(on: readonly string[], script: string): string {
  return `# on: ${on.join(", ")}\n${script.endsWith("\n") ? script : `${script}\n`}`;
}

/**
 * The file with its `# enabled:` line saying so: changed where it is, or
 * (to turn it off) put after the `# on:` line. Turned on, a file without the
 * line is left as it is. Undefined when its header has no `# on:` line.
 */
export function withEnabled(text: string, state: { enabled: true } | { enabled: false; why: string }): string | undefined {
  const lines = text.split("\n");
  const header = headerLines(text).length;
  const at = (key: string) => lines.slice(0, header).findIndex((l) => DIRECTIVE.exec(l)?.[1]?.toLowerCase() === key);
  const on = at("on");
  if (on < 0) return undefined;
  const why = state.enabled ? "" : oneLine(state.why);
  const line = state.enabled ? "# enabled: yes" : `# enabled: no${why ? ` (${why})` : ""}`;
  const existing = at("enabled");
  if (existing >= 0) lines[existing] = line;
  else if (state.enabled) return text;
  else lines.splice(on + 1, 0, line);
  return lines.join("\n");
}

function oneLine(s: string): string {
  const flat = s.replace(/[()]/g, "").replace(/\s+/g, " ").trim();
  return flat.length > WHY_CHARS ? `${flat.slice(0, WHY_CHARS - 1)}…` : flat;
}
