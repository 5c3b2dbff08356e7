// view: read a text file with line numbers, a window at a time, so the mind
// can cite lines for `sub` and never floods its context with a huge file.
import { defineAgentCommand, fail, ok, resolvePath, usageError, type CommandResult } from "./command";

/** Most lines one call prints; the rest is named in a final note. */
export const VIEW_MAX_LINES = 2000;

const USAGE = `usage: view <file> [START [END]]
Print lines START..END (1-based, inclusive; default the whole file) with line numbers, like cat -n.
At most ${VIEW_MAX_LINES} lines a call; a final [view] line says how to see the rest. Binary files are refused.`;

export const view = defineAgentCommand({
  name: "view",
  summary: "view <file> [START [END]]   a text file with line numbers",
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    const [file, ...range] = args;
    if (file === undefined) return usageError(view, "missing file");
    if (range.length > 2) return usageError(view, `too many arguments: ${range.slice(2).join(" ")}`);
    const bounds = range.map((r) => (/^\d+$/.test(r) ? Number(r) : NaN));
    if (bounds.some((n) => !(n >= 1))) return usageError(view, `START and END are line numbers from 1, not '${range.join(" ")}'`);

    const path = resolvePath(io, file);
    let bytes: Uint8Array;
    try {
      const stat = await io.fs.stat(path);
      if (stat.isDirectory) return fail(`view: ${file} is a directory; ls or glob lists it`);
      bytes = await io.fs.readFileBuffer(path);
    } catch {
      return fail(`view: no such file ${file}`);
    }
    if (bytes.includes(0)) return fail(`view: ${file} looks binary (it has NUL bytes); file or od -c can inspect it`);

    const text = new TextDecoder().decode(bytes);
    if (text === "") return ok(`[view] ${file} is empty\n`);
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop(); // the final newline ends the last line; it is not one more
    const start = bounds[0] ?? 1;
    const end = Math.min(bounds[1] ?? lines.length, lines.length);
    if (start > lines.length) return fail(`view: ${file} has ${lines.length} line${lines.length === 1 ? "" : "s"}; START ${start} is past the end`);
    if (end < start) return usageError(view, `END ${end} is before START ${start}`);

    const last = Math.min(end, start + VIEW_MAX_LINES - 1);
    let out = "";
    for (let n = start; n <= last; n++) out += `${String(n).padStart(6)}\t${lines[n - 1]}\n`;
    if (last < end) {
      const next = last + 1;
      out += `[view] … ${end - last} more lines; view ${file} ${next} ${Math.min(end, last + VIEW_MAX_LINES)} shows them\n`;
    }
    return ok(out);
  },
});
