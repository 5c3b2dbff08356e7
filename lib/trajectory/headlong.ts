// Headlong's on-disk layout and its tolerant line reader. A trajectory is a
// folder `<hex8>-<slug>/` with `trajectory.jsonl` and `blobs/`; a child is a
// folder nested in its parent's. Readers skip (and count) lines that are not
// JSON objects or lack `type`/`step_id`; unknown kinds are kept; a line that
// is not a valid step is kept as an InvalidLine, never cast to one.
import * as z from "zod";
import { checkStep, parseStep, type Step } from "./schema";

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

/** Where an invalid line sits, as far as its fields say: a field that is not a string is left out (a `ts` is then ""). */
const Placement = z.object({
  ts: z.string().catch(""),
  run_id: z.string().optional().catch(undefined),
  trigger_step: z.string().optional().catch(undefined),
  source: z.string().optional().catch(undefined),
});

/** The fields of an invalid line (see InvalidLine). */
export interface InvalidLineFields {
  type: string;
  step_id: string;
  /** The line's `ts` when it is a string, else "" (so it can be shown and sorted). */
  ts: string;
  run_id?: string;
  trigger_step?: string;
  source?: string;
  /** The line exactly as it was read (trimmed): what export gives back. */
  raw: string;
  /** Why it is not a valid step (parseStep's error). */
  error: string;
}

/**
 * A kept line that is not a valid step: a known kind that fails its schema,
 * or any line whose common fields do (an id that is not a UUID, no usable ts).
 * It is never typed as a step, so `isKind` cannot be lied to: a reader that
 * shows a log shows it as what it is (its text as it came, and why it is
 * invalid), and the mind and the context never see it. A class, not a plain
 * object: a step read from JSON may carry any field at all, so no field could
 * tell the two apart for certain; `line instanceof InvalidLine` does.
 */
export class InvalidLine implements InvalidLineFields {
  readonly type: string;
  readonly step_id: string;
  readonly ts: string;
  // Declared only: an absent field is not an own property (as in a step read from JSON).
  declare readonly run_id?: string;
  declare readonly trigger_step?: string;
  declare readonly source?: string;
  readonly raw: string;
  readonly error: string;

  constructor(f: InvalidLineFields) {
    this.type = f.type;
    this.step_id = f.step_id;
    this.ts = f.ts;
    if (f.run_id !== undefined) this.run_id = f.run_id;
    if (f.trigger_step !== undefined) this.trigger_step = f.trigger_step;
    if (f.source !== undefined) this.source = f.source;
    this.raw = f.raw;
    this.error = f.error;
  }
}

/** A kept line as a reader that shows the log holds it: a valid step, or an invalid line. */
export type StepLine = Step | InvalidLine;

export type LineResult =
  | { ok: true; valid: true; step: Step; raw: string }
  | { ok: true; valid: false; invalid: InvalidLine; raw: string }
  | { ok: false; reason: string };

/**
 * Headlong's variants of a kind, read as the valid steps they are
 * (TRAJECTORY.md): its test fixtures write `shell-output` with `exit_code`
 * where its shellm writes `exit`. The line itself is kept as it was (`raw`),
 * so an export gives it back byte for byte.
 */
export function restoreVariant(value: object): object {
  if ("type" in value && value.type === "shell-output" && !("exit" in value) && "exit_code" in value && typeof value.exit_code === "number") return { ...value, exit: value.exit_code };
  return value;
}

/** The first character of any JSON text (after white space, which readLine trims). */
const JSON_START = /^[{["\-0-9tfn]/;

/** Why a line whose step_id was already read is skipped. */
const DUPLICATE = "duplicate step_id";

/**
 * Read one line. Kept: any JSON object with string `type` and `step_id`. A
 * line that parses as a step is a valid step; one that does not (a known
 * kind that fails its schema, a bad id or ts) is kept as an InvalidLine.
 * `seen` says which ids were already read: such a line is skipped as a
 * DUPLICATE before its schema is checked, so a file of one line repeated
 * costs a JSON.parse a line, not a validation.
 */
export function readLine(line: string, options: { asWritten?: boolean; seen?: (stepId: string) => boolean } = {}): LineResult {
  const raw = line.trim();
  if (!raw) return { ok: false, reason: "blank" };
  // What cannot be JSON, or not an object, is told without JSON.parse: its exception costs microseconds, and junk may come by the million.
  if (!JSON_START.test(raw) || (raw[0] === "{" && raw[raw.length - 1] !== "}")) return { ok: false, reason: "not JSON" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not a JSON object" };
  // What every kept line has: a non-empty string `type` and `step_id` (TRAJECTORY.md: readers skip the rest).
  const type = "type" in value ? value.type : undefined;
  const step_id = "step_id" in value ? value.step_id : undefined;
  if (typeof type !== "string" || typeof step_id !== "string" || !type || !step_id) return { ok: false, reason: "no type or step_id" };
  if (options.seen?.(step_id)) return { ok: false, reason: DUPLICATE };
  // A reader that only reads fields may keep a valid line's own object (schema.ts: checkStep).
  const parsed = (options.asWritten ? checkStep : parseStep)(restoreVariant(value));
  if (parsed.ok) return { ok: true, valid: true, step: parsed.step, raw };
  const invalid = new InvalidLine({ type, step_id, ...Placement.parse(value), raw, error: parsed.error });
  return { ok: true, valid: false, invalid, raw };
}

/** What a reader that shows the log keeps of a line: its step or the invalid line; undefined for a line readers skip. */
export function keptLine(r: LineResult): StepLine | undefined {
  if (!r.ok) return undefined;
  return r.valid ? r.step : r.invalid;
}
