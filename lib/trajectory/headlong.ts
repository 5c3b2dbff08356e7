// Headlong's on-disk layout and its tolerant line reader. A trajectory is a
// folder `<hex8>-<slug>/` with `trajectory.jsonl` and `blobs/`; a child is a
// folder nested in its parent's. Readers skip (and count) lines that are not
// JSON objects or lack `type`/`step_id`; unknown kinds are kept; a line that
// is not a valid step is kept as an InvalidLine, never cast to one.
import * as z from "zod";
import { readLineShape } from "./line";
import { checkStep, parseStep, type Step } from "./schema";

// What callers of the reader import from here, wherever it is defined.
export { classifyPath, MIND_FILE, parentDir, slugify, trajDirName, TRAJECTORY_FILE, type PathRole } from "./layout";
export { DUPLICATE, readLineShape, restoreVariant, type LineShape } from "./line";

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
 * Read one line. Kept: any JSON object with string `type` and `step_id`. A
 * line that parses as a step is a valid step; one that does not (a known
 * kind that fails its schema, a bad id or ts) is kept as an InvalidLine.
 * `seen` says which ids were already read: such a line is skipped as a
 * DUPLICATE before its schema is checked, so a file of one line repeated
 * costs a JSON.parse a line, not a validation.
 */
export function readLine(line: string, options: { asWritten?: boolean; seen?: (stepId: string) => boolean } = {}): LineResult {
  const shape = readLineShape(line, options.seen);
  if (!shape.ok) return shape;
  const { value, type, step_id, raw } = shape;
  // A reader that only reads fields may keep a valid line's own object (schema.ts: checkStep).
  const parsed = (options.asWritten ? checkStep : parseStep)(value);
  if (parsed.ok) return { ok: true, valid: true, step: parsed.step, raw };
  const invalid = new InvalidLine({ type, step_id, ...Placement.parse(value), raw, error: parsed.error });
  return { ok: true, valid: false, invalid, raw };
}

/** What a reader that shows the log keeps of a line: its step or the invalid line; undefined for a line readers skip. */
export function keptLine(r: LineResult): StepLine | undefined {
  if (!r.ok) return undefined;
  return r.valid ? r.step : r.invalid;
}
