// glob: list workspace paths matching patterns, with `**` (just-bash's own
// globbing has no globstar). Our own small matcher: the glob libraries in
// node_modules are only there for the dev tools, not dependencies of ours.
import type { IFileSystem } from "just-bash";
import { defineAgentCommand, fail, ok, usageError, type CommandResult } from "./command";

/** Matches one call lists before it stops and says so. */
export const GLOB_MAX_MATCHES = 5000;
const MAX_EXPANSIONS = 1000;

const USAGE = `usage: glob <pattern>…
List the paths matching any pattern, sorted, one a line; exit 1 when none matches.
  *  any characters but /      ?  one character      [abc] [a-z] [!abc]  one of / none of
  ** any number of directories (src/**/*.ts)         {a,b}  either (*.{ts,tsx})
Names starting with '.' match only a pattern that starts with '.'. A pattern ending in / matches directories.
Relative patterns start from the current directory and print relative paths.
Quote patterns ('**/*.ts') so bash does not expand them first. At most ${GLOB_MAX_MATCHES} matches.`;

export const glob = defineAgentCommand({
  name: "glob",
  summary: "glob <pattern>…   paths matching *, ?, **, {a,b} (quote the pattern)",
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    const patterns = args[0] === "--" ? args.slice(1) : args;
    const option = patterns.find((p) => p.startsWith("-") && args[0] !== "--");
    if (option) return usageError(glob, `unknown option '${option}'`);
    if (!patterns.length) return usageError(glob, "missing pattern");

    const budget = { left: MAX_EXPANSIONS };
    const found = new Set<string>();
    let capped = false;
    for (const pattern of patterns) {
      const expanded = expandBraces(pattern, budget);
      if (!expanded) return usageError(glob, `'${pattern}' expands to more than ${MAX_EXPANSIONS} patterns`);
      for (const one of expanded) {
        const dirOnly = one.endsWith("/");
        const absolute = io.fs.resolvePath(io.cwd, one);
        const segments = absolute.split("/").filter((s) => s !== "").filter((s, i, all) => s !== "**" || all[i - 1] !== "**");
        const hits = new Set<string>();
        try {
          capped = (await walk(io.fs, "/", segments, hits, dirOnly, io.signal)) || capped;
        } catch {
          return usageError(glob, `'${pattern}' is not a pattern glob understands`);
        }
        const relative = !one.startsWith("/");
        for (const hit of hits) found.add((relative ? relativeTo(io.cwd, hit) : hit) + (dirOnly && hit !== "/" ? "/" : ""));
      }
    }
    if (!found.size) return fail(`glob: nothing matches ${patterns.map((p) => `'${p}'`).join(" ")}`);
    const sorted = [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, GLOB_MAX_MATCHES);
    const result: CommandResult = ok(sorted.map((p) => `${p}\n`).join(""));
    if (capped || found.size > GLOB_MAX_MATCHES) result.stderr = `glob: stopped at ${GLOB_MAX_MATCHES} matches; narrow the pattern\n`;
    return result;
  },
});

/** Adds matches of `segments` below `dir` to `out`; true when it stopped at the cap. */
async function walk(fs: IFileSystem, dir: string, segments: string[], out: Set<string>, dirOnly: boolean, signal: AbortSignal): Promise<boolean> {
  if (out.size >= GLOB_MAX_MATCHES || signal.aborted) return true;
  const [seg, ...rest] = segments;
  if (seg === undefined) {
    if (!dirOnly || (await isDirectory(fs, dir))) out.add(dir);
    return false;
  }
  const join = (name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);
  if (seg === "**") {
    // Zero directories, or one more (not hidden, not through a link, which could loop) and `**` again;
    // a final `**` also matches the files on the way.
    let capped = await walk(fs, dir, rest, out, dirOnly, signal);
    for (const e of await entries(fs, dir)) {
      if (e.name.startsWith(".")) continue;
      if (e.isDirectory && !e.isSymbolicLink) capped = (await walk(fs, join(e.name), segments, out, dirOnly, signal)) || capped;
      else if (!rest.length) capped = (await walk(fs, join(e.name), rest, out, dirOnly, signal)) || capped;
    }
    return capped;
  }
  if (!/[*?[]/.test(seg)) return (await fs.exists(join(seg))) ? walk(fs, join(seg), rest, out, dirOnly, signal) : false;
  const re = segmentRegExp(seg);
  let capped = false;
  for (const e of await entries(fs, dir)) {
    if (re.test(e.name)) capped = (await walk(fs, join(e.name), rest, out, dirOnly, signal)) || capped;
  }
  return capped;
}

/** One path segment as a regular expression; throws on a class it cannot build. */
export function segmentRegExp(seg: string): RegExp {
  let re = seg.startsWith(".") ? "" : "(?!\\.)";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] as string;
    const close = c === "[" ? seg.indexOf("]", i + 2) : -1;
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (close > 0) {
      const body = seg.slice(i + 1, close).replace(/\\/g, "\\\\");
      re += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
      i = close;
    } else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "u");
}

/** `{a,b}` alternatives, outermost first; undefined when the budget runs out. */
export function expandBraces(pattern: string, budget: { left: number }): string[] | undefined {
  for (let start = pattern.indexOf("{"); start >= 0; start = pattern.indexOf("{", start + 1)) {
    let depth = 0;
    const cuts = [start];
    for (let i = start; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === "{") depth++;
      else if (c === "," && depth === 1) cuts.push(i);
      else if (c === "}" && --depth === 0) {
        if (cuts.length === 1) break; // `{x}` has no alternatives: literal, as in bash
        cuts.push(i);
        const out: string[] = [];
        for (let k = 0; k + 1 < cuts.length; k++) {
          const more = expandBraces(pattern.slice(0, start) + pattern.slice((cuts[k] as number) + 1, cuts[k + 1]) + pattern.slice(i + 1), budget);
          if (!more) return undefined;
          out.push(...more);
        }
        return out;
      }
    }
  }
  return --budget.left < 0 ? undefined : [pattern];
}

async function entries(fs: IFileSystem, dir: string): Promise<{ name: string; isDirectory: boolean; isSymbolicLink: boolean }[]> {
  try {
    if (fs.readdirWithFileTypes) return await fs.readdirWithFileTypes(dir);
    const names = await fs.readdir(dir);
    return Promise.all(names.map(async (name) => ({ name, ...(await fs.lstat(`${dir === "/" ? "" : dir}/${name}`)) })));
  } catch {
    return []; // not a directory, or gone
  }
}

const isDirectory = (fs: IFileSystem, path: string) => fs.stat(path).then((s) => s.isDirectory, () => false);

/** `abs` as seen from `cwd`, with `..` where it lies outside. */
function relativeTo(cwd: string, abs: string): string {
  const from = cwd.split("/").filter(Boolean);
  const to = abs.split("/").filter(Boolean);
  let k = 0;
  while (k < from.length && k < to.length && from[k] === to[k]) k++;
  return [...Array<string>(from.length - k).fill(".."), ...to.slice(k)].join("/") || ".";
}
