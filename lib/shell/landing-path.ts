// Where a path handed to the workspace's filesystem lands. just-bash's
// InMemoryFs follows links when it reads, but its writes (writeFile, mkdir,
// rm, mv, …) take the path as written: `echo x > /tmp/l/f` with /tmp/l a link
// to a folder makes a hidden entry "/tmp/l/f" behind the link and leaves the
// folder's f as it was. Handing the filesystem this path instead makes a
// write land where bash would put it, and lets whoever watches writes see it.
import type { IFileSystem } from "just-bash";

type Resolver = Pick<IFileSystem, "resolvePath" | "realpath">;

/**
 * `path` with its deepest existing folder resolved through links and the rest
 * as written (a path whose folders do not exist yet keeps them as named).
 * `follow` also follows a link at the end, as a write to a file does; a
 * dangling one is left for the filesystem to replace.
 */
export async function landingPath(fs: Resolver, path: string, follow = false): Promise<string> {
  const abs = fs.resolvePath("/", path);
  if (follow) {
    const real = await fs.realpath(abs).catch(() => null);
    if (real !== null) return real;
  }
  let cut = abs.lastIndexOf("/");
  let dir = abs.slice(0, cut) || "/";
  let rest = abs.slice(cut);
  for (;;) {
    const real = await fs.realpath(dir).catch(() => null);
    if (real !== null) return (real === "/" ? "" : real) + rest;
    if (dir === "/") return abs;
    cut = dir.lastIndexOf("/");
    rest = dir.slice(cut) + rest;
    dir = dir.slice(0, cut) || "/";
  }
}
