// skills: install, read and remove the mind's skills (see ../skills.ts). An
// installed skill always has front matter naming it and describing it, so the
// prompt can offer it by one line whatever shape the source had.
import { BUILTIN_PREFIX, BUILTIN_SKILLS } from "../builtin-skills";
import { fieldText, formatFrontMatter, parseFrontMatter } from "../front-matter";
import type { NetPort } from "../ports";
import { listSkills, SKILL_NAME, skillDescription, skillPath, SKILLS_DIR } from "../skills";
import { defineAgentCommand, fail, ok, resolvePath, usageError, type CommandIO, type CommandResult } from "./command";

const USAGE = `usage: skills list                                   installed skills: <name>  <description>
       skills show <name>                            print a skill's file
       skills install <file or URL> [--name N] [--force]
                                                     install a Markdown skill from a workspace file or an http(s) URL
       skills install builtin:<name>                 install one Reverie ships: ${Object.keys(BUILTIN_SKILLS).join(", ")}
       skills remove <name>                          uninstall a skill
A skill is ${SKILLS_DIR}/<name>.md. Its description is the front matter 'description:' line,
or else its first non-empty line. Its name is --name, else the front matter 'name:', else the
file name; names are lowercase letters, digits, '.', '_' and '-'. --force replaces an installed skill.`;

export const skills = defineAgentCommand<{ net: NetPort }>({
  name: "skills",
  summary: "skills list|show|install|remove   skills: Markdown how-tos offered in the prompt",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    const [sub, ...rest] = args;
    switch (sub) {
      case "list": {
        if (rest.length) return usageError(skills, `list takes no arguments, not '${rest.join(" ")}'`);
        const all = await listSkills(io.fs);
        if (!all.length) return ok("no skills installed; skills install <file or URL> adds one\n");
        const width = Math.max(...all.map((s) => s.name.length));
        return ok(all.map((s) => `${s.name.padEnd(width)}  ${s.description}\n`).join(""));
      }
      case "show":
      case "remove": {
        if (rest.length !== 1) return usageError(skills, `${sub} takes one skill name`);
        const name = rest[0] as string;
        const path = skillPath(name);
        if (!SKILL_NAME.test(name) || !(await isFile(io, path))) return fail(`skills ${sub}: no skill '${name}'; skills list shows the installed ones`);
        if (sub === "remove") {
          await io.fs.rm(path);
          return ok(`removed ${name}\n`);
        }
        const text = await io.fs.readFile(path);
        return ok(text.endsWith("\n") || text === "" ? text : `${text}\n`);
      }
      case "install":
        return install(rest, io, ports);
      case undefined:
        return usageError(skills, "missing subcommand");
      default:
        return usageError(skills, `unknown subcommand '${sub}'`);
    }
  },
});

async function install(args: string[], io: CommandIO, ports: { net: NetPort }): Promise<CommandResult> {
  let name: string | undefined;
  let force = false;
  const sources: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--force") force = true;
    else if (a === "--name" || a.startsWith("--name=")) {
      name = a === "--name" ? args[++i] : a.slice("--name=".length);
      if (!name) return usageError(skills, "--name needs a value");
    } else if (a.startsWith("-")) return usageError(skills, `unknown option '${a}'`);
    else sources.push(a);
  }
  if (sources.length !== 1) return usageError(skills, "install takes one file or URL");
  const source = sources[0] as string;

  const loaded = await load(source, io, ports);
  if (typeof loaded !== "string") return loaded;
  if (loaded.includes("\0")) return fail(`skills install: ${source} is binary; a skill is a Markdown text file`);
  const description = skillDescription(loaded);
  if (!description) return fail(`skills install: ${source} has no description; start it with front matter 'description: <what it is for>' or a line saying what it is for`);

  const { fields, body, hasFrontMatter } = parseFrontMatter(loaded);
  const finalName = name ?? fieldText(fields, "name") ?? baseName(source);
  if (!finalName) return fail(`skills install: cannot tell a name from ${source}; give one with --name`);
  if (!SKILL_NAME.test(finalName)) {
    return fail(`skills install: '${finalName}' cannot be a skill name (lowercase letters, digits, '.', '_', '-'; at most 60); choose one with --name`);
  }
  const path = skillPath(finalName);
  if (!force && (await io.fs.exists(path))) {
    return fail(`skills install: '${finalName}' is already installed; add --force to replace it, or --name to install it under another name`);
  }
  // Name and description first, as decided here; the source's other fields follow as they were.
  const { name: _name, description: _description, ...others } = fields;
  const text = formatFrontMatter({ name: finalName, description, ...others }, hasFrontMatter ? body : loaded);
  await io.fs.mkdir(SKILLS_DIR, { recursive: true });
  await io.fs.writeFile(path, text);
  return ok(`installed ${finalName}: ${description}\n`);
}

/** The source's text, or the result to return when it cannot be had. */
async function load(source: string, io: CommandIO, ports: { net: NetPort }): Promise<string | CommandResult> {
  if (source.startsWith(BUILTIN_PREFIX)) {
    const name = source.slice(BUILTIN_PREFIX.length);
    const shipped = Object.hasOwn(BUILTIN_SKILLS, name) ? BUILTIN_SKILLS[name] : undefined;
    if (shipped === undefined) return fail(`skills install: Reverie ships no skill '${name}' (it ships: ${Object.keys(BUILTIN_SKILLS).join(", ")})`);
    return shipped;
  }
  if (/^https?:\/\//i.test(source)) {
    const got = await ports.net.fetchText(source, io.signal);
    if (!got.ok) return fail(`skills install: ${got.error}`);
    if (got.status < 200 || got.status > 299) return fail(`skills install: ${source} answered HTTP ${got.status}`);
    return got.text;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return fail(`skills install: only http(s) URLs and workspace files can be installed, not ${source}`);
  const path = resolvePath(io, source);
  if (!(await isFile(io, path))) return fail(`skills install: no file ${source}`);
  return io.fs.readFile(path);
}

/** The last path segment without `.md`, from a path or a URL. */
function baseName(source: string): string {
  let path = source;
  try {
    if (/^https?:\/\//i.test(source)) path = decodeURIComponent(new URL(source).pathname);
  } catch {
    // not a URL after all; use it as written
  }
  const last = path.replace(/\/+$/, "").split("/").at(-1) ?? "";
  return last.replace(/\.md$/i, "");
}

async function isFile(io: CommandIO, path: string): Promise<boolean> {
  try {
    return (await io.fs.stat(path)).isFile;
  } catch {
    return false;
  }
}
