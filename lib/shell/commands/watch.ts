// watch: the mind's watchers (issue 24, part 4), programs it writes that run
// in its sandbox after each step of the types they name, with the step's JSON
// on stdin; what one prints reaches it as an observation. Each is a file,
// self/watchers/NAME.sh (lib/mind/watchers/file.ts), which this command
// writes like any other file (so the block's end records it as the mind's
// self-edit, and from then on it runs as recorded); how they ran comes from
// the runner (lib/mind/watchers/watchers.ts), which keeps it in memory.
import { WATCHER_NAME, parseTypes, parseWatcher, watcherText, withEnabled } from "../../mind/watchers/file";
import { FAILURES_TO_DISABLE, RECENT_RUNS } from "../../mind/watchers/watchers";
import { alarmTime } from "../../trajectory/summary";
import { FIXED_LIMITS } from "../limits";
import type { WatcherPort, WatcherRun, WatcherStats } from "../ports";
import { WATCHER_FILE } from "../self/files";
import { WATCHERS_DIR } from "../self/paths";
import { defineAgentCommand, fail, ok, usageError, type CommandIO, type CommandResult } from "./command";

const USAGE = `usage: watch add NAME --on TYPES [--run '<bash>']   add a watcher: it runs the bash (or stdin) after each step of TYPES (e.g. thought,message)
       watch list                    every watcher: NAME  on TYPES  enabled|disabled  runs, outputs, failures
       watch show NAME               its file, and how it ran: runs, outputs, failures, skipped, last output, last error
       watch logs NAME [-n N]        its latest runs, oldest first (default 10, at most ${RECENT_RUNS})
       watch enable NAME             turn it on again
       watch disable NAME [why…]     turn it off
       watch rm NAME                 remove it
A watcher is self/watchers/NAME.sh: a header line '# on: TYPES' (and '# enabled: no (why)' while off), then bash.
From the end of the block that wrote it, it runs after each step of those types with the step's JSON on stdin
(jq -r .content reads a thought's text); what it prints comes to you as an observation [watcher NAME].
Each run has ${FIXED_LIMITS.watcherWallMs / 1000} s and ${FIXED_LIMITS.watcherOutputBytes} bytes of output; a watcher runs at most ${FIXED_LIMITS.watcherRunsPerMinute} times a minute.
A non-zero exit is a failure (mem search and grep exit 1 when they find nothing: end with true), and
${FAILURES_TO_DISABLE} failures in a row turn it off. A watcher reads: it cannot send messages, set alarms or run shellm.
A ready one: skills install builtin:recall-watcher.`;

type Ports = { watchers: WatcherPort };

const fileOf = (name: string) => `${WATCHERS_DIR}/${name}.sh`;
const shown = (name: string) => `self/watchers/${name}.sh`;

export const watch = defineAgentCommand<Ports>({
  name: "watch",
  summary: "watch add NAME --on TYPES --run '<bash>' | list | show | logs | enable | disable | rm   your watchers: bash run after each step of a type",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    const [sub, ...rest] = args;
    switch (sub) {
      case "add":
        return add(rest, io);
      case "list":
        if (rest.length) return usageError(watch, `list takes no arguments, not '${rest.join(" ")}'`);
        return list(io, ports.watchers);
      case "show":
      case "logs":
      case "enable":
      case "disable":
      case "rm":
        return one(sub, rest, io, ports.watchers);
      case undefined:
        return usageError(watch, "missing subcommand");
      default:
        return usageError(watch, `unknown subcommand '${sub}'`);
    }
  },
});

async function add(args: string[], io: CommandIO): Promise<CommandResult> {
  let on: string | undefined;
  let script: string | undefined;
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const flag = /^--(on|run)(?:=([\s\S]*))?$/.exec(a);
    if (flag) {
      const value = flag[2] ?? args[++i];
      if (value === undefined) return usageError(watch, `--${flag[1]} needs a value`);
      if (flag[1] === "on") on = value;
      else script = value;
    } else if (a.startsWith("-")) return usageError(watch, `unknown option '${a}'`);
    else names.push(a);
  }
  if (names.length !== 1) return usageError(watch, "add takes one NAME");
  const name = names[0] as string;
  if (!WATCHER_NAME.test(name)) return fail(`watch add: '${name}' cannot be a watcher's name (lowercase letters, digits, '_' and '-', starting with a letter or digit; at most 40)`);
  if (on === undefined) return usageError(watch, "add needs --on TYPES: the step types it runs after");
  const types = parseTypes(on);
  if (typeof types === "string") return fail(`watch add: --on: ${types}`);
  const bash = script ?? io.stdin;
  if (!bash.trim()) return usageError(watch, "add needs the bash to run: --run '<bash>', or on stdin");
  const path = fileOf(name);
  if (await io.fs.exists(path)) return fail(`watch add: there is a watcher '${name}' already (${shown(name)}); watch rm ${name} first, or edit its file`);
  if (!(await io.fs.exists(WATCHERS_DIR))) await io.fs.mkdir(WATCHERS_DIR, { recursive: true });
  await io.fs.writeFile(path, watcherText(types, bash));
  return ok(`added ${name}: from the end of this block it runs after each ${types.join(" / ")} step (${shown(name)})\n`);
}

async function list(io: CommandIO, port: WatcherPort): Promise<CommandResult> {
  const names = (await io.fs.readdir(WATCHERS_DIR).catch(() => [] as string[])).filter((f) => WATCHER_FILE.test(f)).map((f) => f.slice(0, -3)).sort();
  const rows: string[][] = [];
  for (const name of names) {
    const text = await plainText(io, fileOf(name));
    if (text === null) continue;
    const h = parseWatcher(text);
    const s = port.stats(name);
    const counts = `runs ${s?.runs ?? 0}, outputs ${s?.outputs ?? 0}, failures ${s?.failures ?? 0}${s?.skipped ? `, skipped ${s.skipped}` : ""}`;
    const pending = port.recorded(name) === text ? "" : port.recorded(name) === undefined ? "  (new: runs from the end of this block)" : "  (changed: from the end of this block)";
    rows.push(h.ok ? [name, `on ${h.on.join(",")}`, h.enabled ? "enabled" : "disabled", counts + pending] : [name, `broken: ${h.error}`]);
  }
  if (!rows.length) return ok("no watchers; watch add NAME --on TYPES --run '<bash>' adds one\n");
  const width = (i: number) => Math.max(...rows.filter((r) => r.length > 2).map((r) => (r[i] ?? "").length), 0);
  const widths = [Math.max(...rows.map((r) => (r[0] ?? "").length)), width(1), width(2)];
  return ok(rows.map((r) => `${r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join("  ")}\n`).join(""));
}

async function one(sub: "show" | "logs" | "enable" | "disable" | "rm", args: string[], io: CommandIO, port: WatcherPort): Promise<CommandResult> {
  let n = 10;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (sub === "logs" && a === "-n") {
      n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) return usageError(watch, `-n takes a whole number above 0, not '${args[i] ?? ""}'`);
    } else words.push(a);
  }
  const [name, ...more] = words;
  if (name === undefined || (more.length && sub !== "disable")) return usageError(watch, `${sub} takes one NAME`);
  const text = WATCHER_NAME.test(name) ? await plainText(io, fileOf(name)) : null;
  const stats = WATCHER_NAME.test(name) ? port.stats(name) : undefined;
  if (text === null && !(sub === "logs" && stats)) return fail(`watch ${sub}: no watcher '${name}'; watch list shows them`);
  switch (sub) {
    case "show":
      return ok(show(name, text as string, port));
    case "logs":
      return ok(logs(name, stats, Math.min(n, RECENT_RUNS), port.since));
    case "rm":
      await io.fs.rm(fileOf(name));
      return ok(`removed ${name} (it stops at the end of this block)\n`);
    case "enable":
    case "disable": {
      const h = parseWatcher(text as string);
      const changed = withEnabled(text as string, sub === "enable" ? { enabled: true } : { enabled: false, why: more.join(" ") });
      if (changed === undefined) return fail(`watch ${sub}: ${name} cannot be turned ${sub === "enable" ? "on" : "off"}: ${h.ok ? "" : h.error}; fix ${shown(name)}`);
      if (h.ok && h.enabled === (sub === "enable")) return ok(`${name} is ${sub}d already\n`);
      await io.fs.writeFile(fileOf(name), changed);
      return ok(`${sub}d ${name} (from the end of this block)\n`);
    }
  }
}

function show(name: string, text: string, port: WatcherPort): string {
  const h = parseWatcher(text);
  const s = port.stats(name);
  const lines = [`watcher ${name} (${shown(name)})`];
  if (h.ok) lines.push(`on: ${h.on.join(", ")}`, `enabled: ${h.enabled ? "yes" : `no${h.why ? ` (${h.why})` : ""}`}`);
  else lines.push(`broken: ${h.error}; it does not run`);
  const since = alarmTime(port.since);
  if (port.since === 0) lines.push("runs: none here (watchers run in a mind's own sandbox)");
  else lines.push(`runs: ${s?.runs ?? 0} since ${since}: ${s?.outputs ?? 0} printed, ${s?.failures ?? 0} failed${s?.failuresInRow ? ` (${s.failuresInRow} in a row)` : ""}, ${s?.skipped ?? 0} skipped`);
  if (s?.lastOutput) lines.push(`last output: ${alarmTime(s.lastOutput.at)} ${firstLine(s.lastOutput.text)}`);
  if (s?.lastError) lines.push(`last error: ${alarmTime(s.lastError.at)} ${s.lastError.text}`);
  const recorded = port.recorded(name);
  if (port.since !== 0 && recorded === undefined) lines.push("note: new in this block: it runs from the end of the block");
  else if (port.since !== 0 && recorded !== text) lines.push("note: changed in this block: until its end, the text as recorded before runs");
  if (s?.samePrinted && s.samePrinted >= 2) lines.push(`note: its last ${s.samePrinted + 1} runs printed the same thing, each after another step. Does it read the step on stdin (jq -r .content)?`);
  if (s && s.runs > 0 && s.outputs === 0) lines.push(`note: it ran ${s.runs} time${s.runs > 1 ? "s" : ""} and never printed anything. Does it read the step on stdin (jq -r .content) and print what it finds?`);
  return `${lines.join("\n")}\n--- ${shown(name)}\n${text.endsWith("\n") || text === "" ? text : `${text}\n`}`;
}

function logs(name: string, s: WatcherStats | undefined, n: number, since: number): string {
  const runs = s?.recent.slice(-n) ?? [];
  if (!runs.length) return `${name} has not run${since ? ` since ${alarmTime(since)}` : " here"}\n`;
  return runs.map(runLines).join("");
}

/** `<time> [failed (why), ]printed N lines`, then what it printed, indented, and its stderr, marked. */
function runLines(r: WatcherRun): string {
  const lines = r.output ? r.output.split("\n") : [];
  const printed = lines.length ? `printed ${lines.length} line${lines.length > 1 ? "s" : ""}` : "printed nothing";
  const errors = r.stderr ? r.stderr.split("\n").map((l) => `  stderr: ${l}\n`) : [];
  return `${alarmTime(r.at)} ${r.failed ? `failed (${r.failed}), ` : ""}${printed}\n${lines.map((l) => `  ${l}\n`).join("")}${errors.join("")}`;
}

function firstLine(text: string): string {
  const lines = text.split("\n");
  const first = lines[0] ?? "";
  const cut = first.length > 100 ? `${first.slice(0, 99)}…` : first;
  return lines.length > 1 ? `${cut} (+${lines.length - 1} more line${lines.length > 2 ? "s" : ""})` : cut;
}

/** A plain file's text, or null (none there, a folder, a link). */
async function plainText(io: CommandIO, path: string): Promise<string | null> {
  const st = await io.fs.lstat(path).catch(() => null);
  if (!st || st.isSymbolicLink || !st.isFile) return null;
  return io.fs.readFile(path);
}
