// Headlong's on-disk layout: a trajectory is a folder `<hex8>-<slug>/` with
// `trajectory.jsonl` and `blobs/`; a child is a folder nested in its
// parent's. No schema here (headlong.ts reads lines against them), so a
// reader that only places files (the command line's context) loads none.

/** Lower-case `[a-z0-9._-]`, at most 60 characters, never empty. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    // Accents come apart under NFKD; drop the marks so "Über" is "uber", not "u-ber".
    .replace(/\p{M}+/gu, "")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slug || "trajectory";
}

export function trajDirName(trajId: string, name: string): string {
  return `${trajId.replace(/-/g, "").slice(0, 8)}-${slugify(name)}`;
}

export const TRAJECTORY_FILE = "trajectory.jsonl";
export const MIND_FILE = "mind.json";

export type PathRole =
  | { kind: "trajectory"; dir: string }
  | { kind: "blob"; dir: string; name: string }
  | { kind: "mind" }
  | { kind: "other" };

/** What an archive entry is, by its path (`a/b/trajectory.jsonl`, `a/b/blobs/x`). */
export function classifyPath(path: string): PathRole {
  const clean = path.replace(/\\/g, "/").replace(/^\.?\/+/, "");
  const parts = clean.split("/").filter(Boolean);
  const file = parts[parts.length - 1] ?? "";
  if (file === TRAJECTORY_FILE) return { kind: "trajectory", dir: parts.slice(0, -1).join("/") };
  const blobsAt = parts.lastIndexOf("blobs");
  if (blobsAt >= 0 && blobsAt < parts.length - 1) return { kind: "blob", dir: parts.slice(0, blobsAt).join("/"), name: parts.slice(blobsAt + 1).join("/") };
  if (file === MIND_FILE && parts.length <= 2) return { kind: "mind" };
  return { kind: "other" };
}

/** The nearest folder among `dirs` that contains `dir` (its parent trajectory). */
export function parentDir(dir: string, dirs: ReadonlySet<string>): string | undefined {
  const parts = dir.split("/");
  for (let n = parts.length - 1; n >= 0; n--) {
    const candidate = parts.slice(0, n).join("/");
    if (candidate !== dir && dirs.has(candidate)) return candidate;
  }
  return undefined;
}
