// Headlong's on-disk layout and its tolerant line reader. A trajectory is a
// folder `<hex8>-<slug>/` with `trajectory.jsonl` and `blobs/`; a child is a
// folder nested in its parent's. Readers skip (and count) lines that are not
// JSON objects or lack `type`/`step_id`; unknown kinds are kept.
import { parseStep, type Step } from "./schema";

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

export type LineResult = { ok: true; step: Step; raw: string; valid: boolean } | { ok: false; reason: string };

/**
 * Read one line. Kept: any JSON object with string `type` and `step_id`. A
 * known kind that does not match its schema is kept as-is but marked invalid.
 */
export function readLine(line: string): LineResult {
  const raw = line.trim();
  if (!raw) return { ok: false, reason: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, reason: "not a JSON object" };
  const v = value as Record<string, unknown>;
  if (typeof v.type !== "string" || typeof v.step_id !== "string" || !v.type || !v.step_id) return { ok: false, reason: "no type or step_id" };
  const parsed = parseStep(value);
  if (parsed.ok) return { ok: true, step: parsed.step, raw, valid: true };
  return { ok: true, step: looseStep(v), raw, valid: false };
}

/** A step kept as it came, with `ts` made a string so it can be shown and sorted. */
export function looseStep(v: Record<string, unknown>): Step {
  return { ...v, type: String(v.type), step_id: String(v.step_id), ts: typeof v.ts === "string" ? v.ts : "" } as Step;
}

/** Split a text stream into lines across chunk boundaries (\n or \r\n). */
export class LineSplitter {
  private rest = "";

  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const lines = text.split("\n");
    this.rest = lines.pop() ?? "";
    return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  }

  end(): string[] {
    const last = this.rest;
    this.rest = "";
    return last ? [last.endsWith("\r") ? last.slice(0, -1) : last] : [];
  }
}
