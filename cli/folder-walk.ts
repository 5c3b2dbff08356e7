// A Headlong trajectory folder's files as a tar of it would list them (what
// cli/source.ts streams, and what `reverie context` reads from disk as they are).
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { TRAJECTORY_FILE } from "../lib/trajectory/layout";
import { ArgumentError } from "./out";

export interface FolderFile {
  /** "/"-separated, relative to the folder given. */
  rel: string;
  abs: string;
  size: number;
}

/**
 * Every regular file under `root`, as a tar of the folder would hold them
 * minus its links: symlinks are not followed (a tar keeps them as links, which
 * readers skip). In each folder its trajectory.jsonl first, then its other
 * files, then its folders, each by name: a parent trajectory is read before
 * its children, whatever the names.
 */
export async function walk(root: string, rel = ""): Promise<FolderFile[]> {
  const dir = rel ? join(root, rel) : root;
  const entries = (await readdir(dir, { withFileTypes: true })).sort(byName);
  const files = entries.filter((e) => e.isFile()).sort((a, b) => Number(b.name === TRAJECTORY_FILE) - Number(a.name === TRAJECTORY_FILE));
  // The sizes asked all at once: a trajectory's blobs/ holds hundreds of files, and one stat after another waits on each.
  const out: FolderFile[] = await Promise.all(
    files.map(async (f) => {
      const path = rel ? `${rel}/${f.name}` : f.name;
      return { rel: path, abs: join(root, path), size: (await stat(join(root, path))).size };
    }),
  );
  for (const d of entries.filter((e) => e.isDirectory())) out.push(...(await walk(root, rel ? `${rel}/${d.name}` : d.name)));
  return out;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A folder with no trajectory.jsonl in it or below: the arguments are the problem (exit 2). */
export function noTrajectoryIn(path: string, files: readonly FolderFile[]): void {
  if (!files.some((f) => basename(f.rel) === TRAJECTORY_FILE)) {
    throw new ArgumentError(`${path} is a folder with no ${TRAJECTORY_FILE} in it or in its subfolders; give a Headlong trajectory folder, a ${TRAJECTORY_FILE}, .zip or .tar.gz`);
  }
}
