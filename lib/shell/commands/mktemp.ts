// mktemp: just-bash has none. Random characters come from the ids port, so
// the command stays deterministic under test.
import type { IdsPort } from "../ports";
import { defineAgentCommand, fail, ok, resolvePath, usageError, type CommandResult } from "./command";

const TMP = "/tmp";
const DEFAULT_TEMPLATE = "tmp.XXXXXXXXXX";

const USAGE = `usage: mktemp [-d] [-p DIR] [TEMPLATE]
Create a new empty file (-d: directory) and print its path. The run of X's at the end of
TEMPLATE (at least 3; default ${DEFAULT_TEMPLATE}) becomes random characters.
A TEMPLATE without / goes in DIR (default ${TMP}); one with / is a path from the current directory.`;

export const mktemp = defineAgentCommand<{ ids: IdsPort }>({
  name: "mktemp",
  summary: "mktemp [-d] [TEMPLATE]   create a unique temporary file or directory under /tmp",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    let directory = false;
    let dir: string | undefined;
    const templates: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === "-d" || a === "--directory") directory = true;
      else if (a === "-t" || a === "-q") continue; // GNU's "in the temp dir" is our default; -q: we only speak on failure anyway
      else if (a === "-p" || a === "--tmpdir") {
        dir = args[++i];
        if (!dir) return usageError(mktemp, `${a} needs a directory`);
      } else if (a.startsWith("-")) return usageError(mktemp, `unknown option '${a}'`);
      else templates.push(a);
    }
    if (templates.length > 1) return usageError(mktemp, "give at most one TEMPLATE");
    const template = templates[0] ?? DEFAULT_TEMPLATE;
    const xs = /X{3,}$/.exec(template.slice(template.lastIndexOf("/") + 1));
    if (!xs) return fail(`mktemp: too few X's in template '${template}'; end it with at least 3, like ${DEFAULT_TEMPLATE}`);

    const base = resolvePath(io, template.includes("/") ? template : `${dir ?? TMP}/${template}`);
    const parent = base.slice(0, base.lastIndexOf("/")) || "/";
    if (parent === TMP && !(await io.fs.exists(TMP))) await io.fs.mkdir(TMP, { recursive: true });
    const isDir = await io.fs.stat(parent).then((s) => s.isDirectory, () => false);
    if (!isDir) return fail(`mktemp: cannot create in ${parent}: no such directory`);

    const stem = base.slice(0, base.length - xs[0].length);
    for (let tries = 0; tries < 20; tries++) {
      const path = stem + randomChars(ports.ids, xs[0].length);
      if (await io.fs.exists(path)) continue;
      if (directory) await io.fs.mkdir(path);
      else await io.fs.writeFile(path, "");
      return ok(`${path}\n`);
    }
    return fail(`mktemp: no free name for '${template}' after 20 tries; use more X's`);
  },
});

// The tail of the uuids (their most random part), as many as the template asks for.
function randomChars(ids: IdsPort, n: number): string {
  let hex = "";
  while (hex.length < n) hex = ids.uuid().replace(/-/g, "") + hex;
  return hex.slice(-n);
}
