// The root trajectory's lines as `reverie context` reads them from a
// trajectory.jsonl in memory: cut where lib/import/lines.ts's LineSplitter
// cuts (byte offsets, nothing decoded), then classified as lib/trajectory's
// readLine would classify them, with one difference that makes a 10,000-step
// life answer in about the time Node takes to start: a line that begins as
// every writer writes one, `{"type":"…","step_id":"…",` and ends with `}`, is
// taken as the step of that kind and id without parsing it, unless the
// context shows it. The lines it shows (the verbatim tail, the header) are
// parsed and checked against the schemas in full (cli/step-check.ts); should
// one of them not be what its first bytes said, it is read again in full and
// the stream is worked out anew (Rescan). Any other line is parsed and
// checked at once. What the context never shows of a line it took by its
// first bytes is how the rest of the line reads: a step there whose fields
// break its schema, or that is not JSON after its id, stays in the stream
// (readLine would skip it).
import { inStreamType, OUT_OF_STREAM, type ContextSource } from "../lib/context/stream";
import { MAX_LINE_BYTES, overLongReason } from "../lib/import/lines";
import { DUPLICATE, readLineShape, type LineShape } from "../lib/trajectory/line";
import type { Step } from "../lib/trajectory/schema";
import { checkStepValue } from "./step-check";

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const isBlank = (byte: number | undefined) => byte === 0x20 || byte === NEWLINE || byte === RETURN || byte === 0x09;

/** The lines of a file, as LineSplitter hands them out: blank ones left out, each from its first non-blank byte to before its "\n" (and a "\r" before it). */
export interface Lines {
  bytes: Buffer;
  /**
   * The bytes as one string, a character for a byte, where lines are found
   * (string searches need no call out of the engine) and every line's first
   * bytes matched in place; undefined for a file past what one string may
   * hold, whose every line is read in full.
   */
  text?: string;
  from: number[];
  to: number[];
  /** Lines over the limit, left out (LineSplitter's overLong). */
  overLong: number;
}

/** The longest file made one string (V8's strings stop short of 2^29 characters). */
const MAX_TEXT = 256 * 1024 * 1024;

/** A line read in full: as readLine reads it, with the schema's answer (undefined: zod must give it). */
export type FullLine = { shape: LineShape; valid: boolean | undefined; step?: Step };

/** What a scan makes of the lines: the stream, the ids, the header, what was skipped and why. */
export interface Scanned {
  lines: Lines;
  /** By stream position: the line it is. */
  stream: number[];
  /** By line: its step id, for the lines kept (valid or not). */
  ids: (string | undefined)[];
  /** By line: the step, for the lines read in full. */
  steps: Map<number, Step>;
  skipped: Record<string, number>;
  /** The header's fields (the first line kept, when it is a `trajectory` line). */
  name?: string;
  parentTraj?: string;
  /** Lines whose schema only zod can answer (their answers go in `answers`, and the scan is made again). */
  askZod: number[];
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
/**
 * A line's first bytes as every writer writes them, `{"type":"<kind>","step_id":"<id>"`,
 * both plain printable ASCII (no escape, no quote), matched in place in the
 * file made one string: tested, not matched, so that a line costs no match
 * object, and its id is sliced from the file.
 */
const FIRST_BYTES = /\{"type":"[ !#-[\]-~]+","step_id":"[ !#-[\]-~]+"/y;
/** The kinds the stream leaves out (lib/context/stream.ts), by their length: a kind of another length is in the stream without a comparison. */
const OUT_BY_LENGTH = new Map<number, string[]>();
for (const kind of OUT_OF_STREAM) OUT_BY_LENGTH.set(kind.length, [...(OUT_BY_LENGTH.get(kind.length) ?? []), kind]);

/** The line decoded and read as readLine reads it, its value checked by the compiled schemas. */
export function readFull(lines: Lines, line: number, seen?: (id: string) => boolean): FullLine {
  const text = decoder.decode(lines.bytes.subarray(lines.from[line], lines.to[line]));
  const shape = readLineShape(text, seen);
  if (!shape.ok) return { shape, valid: false };
  const valid = checkStepValue(shape.value);
  // A value the schema accepts as it is, is the step (lib/trajectory/schema.ts: checkStep).
  const step: Step | undefined = valid ? (shape.value as Step) : undefined;
  return { shape, valid, step };
}

/**
 * Cut the bytes into lines and classify every line, in one pass. `full`
 * names lines to read in full whatever their first bytes say; `answers` holds
 * zod's answer for lines the compiled checks could not give (ask the lines in
 * `askZod`, then scan again: the lines are cut the same way each time).
 * `firstOnly` stops at the first line kept (what a header needs).
 */
export function scan(bytes: Buffer, full: ReadonlySet<number>, answers: ReadonlyMap<number, { valid: boolean; step?: Step }>, firstOnly = false): Scanned {
  const text = bytes.length <= MAX_TEXT ? bytes.toString("latin1") : undefined;
  const lines: Lines = { bytes, ...(text !== undefined ? { text } : {}), from: [], to: [], overLong: 0 };
  const out: Scanned = { lines, stream: [], ids: [], steps: new Map(), skipped: {}, askZod: [] };
  const seen = new Set<string>();
  const skip = (reason: string, n = 1) => void (out.skipped[reason] = (out.skipped[reason] ?? 0) + n);
  const n = bytes.length;
  let first = true;
  let at = 0;
  while (at < n) {
    // A line: from its first non-blank byte to its "\n" (a blank line is no line), as LineSplitter cuts it.
    if (text !== undefined) while (at < n && isBlank(text.charCodeAt(at))) at++;
    else while (at < n && isBlank(bytes[at])) at++;
    if (at === n) break;
    let nl = text !== undefined ? text.indexOf("\n", at) : bytes.indexOf(NEWLINE, at);
    if (nl < 0) nl = n;
    const from = at;
    const to = bytes[nl - 1] === RETURN ? nl - 1 : nl;
    at = nl + 1;
    if (nl - from > MAX_LINE_BYTES) {
      lines.overLong++;
      continue;
    }
    const line = lines.from.length;
    lines.from.push(from);
    lines.to.push(to);
    let id: string | undefined;
    let inStream = true;
    let valid = true;
    if (!first && text !== undefined && (full.size === 0 || !full.has(line))) {
      // A line that begins as every writer writes one and ends with `}`: taken as the step of that kind and id (see above).
      let end = to;
      while (end > from && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
      FIRST_BYTES.lastIndex = from;
      if (text.charCodeAt(end - 1) === 0x7d && FIRST_BYTES.test(text) && FIRST_BYTES.lastIndex <= to) {
        const idEnd = FIRST_BYTES.lastIndex - 1;
        const typeEnd = text.indexOf('","step_id":"', from + 9);
        id = text.slice(typeEnd + 13, idEnd);
        const out = OUT_BY_LENGTH.get(typeEnd - from - 9);
        inStream = !out?.some((kind) => text.startsWith(kind, from + 9));
      }
    }
    if (id !== undefined) {
      if (seen.has(id)) {
        skip(DUPLICATE);
        continue;
      }
    } else {
      const r = readFull(lines, line, (i) => seen.has(i));
      if (!r.shape.ok) {
        if (r.shape.reason !== "blank") skip(r.shape.reason);
        continue;
      }
      id = r.shape.step_id;
      inStream = inStreamType(r.shape.type);
      const answer = answers.get(line);
      if (r.valid === undefined && !answer) out.askZod.push(line);
      valid = answer?.valid ?? r.valid ?? true;
      const step = answer?.step ?? r.step;
      if (valid && step) out.steps.set(line, step);
      if (first && r.shape.type === "trajectory") {
        const header: unknown = JSON.parse(r.shape.raw);
        if (header && typeof header === "object") {
          if ("name" in header && typeof header.name === "string") out.name = header.name;
          if ("parent_traj" in header && typeof header.parent_traj === "string") out.parentTraj = header.parent_traj;
        }
      }
    }
    first = false;
    seen.add(id);
    out.ids[line] = id;
    // The context never sees a line that is not a valid step; it is counted with the skipped ones.
    if (!valid) skip("not a valid step");
    else if (inStream) out.stream.push(line);
    if (firstOnly) return out;
  }
  if (lines.overLong > 0) skip(overLongReason(MAX_LINE_BYTES), lines.overLong);
  return out;
}

/** A line the scan took by its first bytes turned out otherwise: read it in full and scan again. */
export class Rescan extends Error {
  constructor(readonly line: number) {
    super(`line ${line + 1} is not what its first bytes said`);
  }
}

/**
 * The stream as buildContext reads it: a step is read in full when it is
 * asked for (Rescan when it is not the valid step of the kind and id the scan
 * took it for), an id is the one its line begins with.
 */
export function streamSource(s: Scanned): ContextSource {
  const lines = s.lines;
  return {
    length: s.stream.length,
    at: (pos) => {
      const line = s.stream[pos];
      if (line === undefined) return undefined;
      const known = s.steps.get(line);
      if (known) return known;
      const r = readFull(lines, line);
      if (!r.step || !r.shape.ok || r.shape.step_id !== s.ids[line] || !inStreamType(r.step.type)) throw new Rescan(line);
      s.steps.set(line, r.step);
      return r.step;
    },
    ids: (from, to) => {
      const out: string[] = [];
      const end = Math.min(to, s.stream.length);
      for (let p = Math.max(0, from); p < end; p++) out.push(s.ids[s.stream[p] ?? -1] ?? "");
      return out;
    },
  };
}
