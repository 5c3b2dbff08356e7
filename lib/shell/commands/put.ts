// put: write stdin to a file in one step. Unlike `>`, it never half-writes a
// file (it writes a temporary file and moves it into place) and never
// clobbers one by accident (replacing needs --force).
import type { IFileSystem } from "just-bash";
import { defineAgentCommand, fail, ok, resolvePath, usageError, type CommandResult } from "./command";

const USAGE = `usage: put <file> [--force]
Write stdin to <file>, creating missing parent directories; prints 'wrote <file> (<N> bytes)'.
An existing file is replaced only with --force; empty stdin is refused without it (usually a mistake).
Example: put notes/plan.md <<'EOF' … EOF`;

export const put = defineAgentCommand({
  name: "put",
  summary: "put <file> [--force]   write stdin to a file atomically (no overwrite without --force)",
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    const files = args.filter((a) => a !== "--force");
    const force = files.length < args.length;
    const unknown = files.find((a) => a.startsWith("-") && a !== "-");
    if (unknown) return usageError(put, `unknown option '${unknown}'`);
    if (files.length !== 1) return usageError(put, files.length ? "put takes one file" : "missing file");
    const file = files[0] as string;
    const path = resolvePath(io, file);

    const existing = await io.fs.stat(path).catch(() => undefined);
    if (existing?.isDirectory) return fail(`put: ${file} is a directory`);
    if (existing && !force) return fail(`put: ${file} exists; add --force to replace it (sub changes part of it)`);
    if (io.stdin === "" && !force) return fail(`put: nothing on stdin; pipe the content in (… | put ${file}, or a heredoc); touch makes an empty file`);

    // Some filesystems would happily nest a file under a file; check the nearest existing ancestor.
    const dir = path.slice(0, path.lastIndexOf("/")) || "/";
    for (let d = dir; d !== ""; d = d.slice(0, d.lastIndexOf("/"))) {
      const s = await io.fs.stat(d || "/").catch(() => undefined);
      if (s && !s.isDirectory) return fail(`put: ${d} is a file, so ${file} cannot be created under it`);
      if (s) break;
    }
    try {
      await io.fs.mkdir(dir, { recursive: true });
    } catch {
      return fail(`put: cannot create the directory ${dir}`);
    }
    const error = await writeAtomically(io.fs, path, io.stdin);
    if (error) return fail(`put: cannot write ${file}: ${error}`);
    return ok(`wrote ${file} (${new TextEncoder().encode(io.stdin).length} bytes)\n`);
  },
});

/** Write a sibling temporary file, then move it over `path`; undefined on success, else why not. */
export async function writeAtomically(fs: IFileSystem, path: string, text: string): Promise<string | undefined> {
  // Random because two writers of the same file must not share a temporary name.
  const tmp = `${path}.put-tmp-${Math.random().toString(36).slice(2, 10)}`;
  try {
    await fs.writeFile(tmp, text);
    await fs.mv(tmp, path);
    return undefined;
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    return e instanceof Error ? e.message : String(e);
  }
}
