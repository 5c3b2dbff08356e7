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
import { takeRegularLines } from "./context-scan-wasm";
import { checkStepValue } from "./step-check";

const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** The lines of a file, as LineSplitter hands them out: blank ones left out, each from its first non-blank byte to before its "\n" (and a "\r" before it). */
export class Lines {
  /** Line i is bytes [starts[i], ends[i]) (typed arrays, as long as the count: a store in them costs less than a push). */
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  count = 0;
  /** Lines over the limit, left out (LineSplitter's overLong). */
  overLong = 0;

  constructor(
    readonly bytes: Buffer,
    /**
     * The bytes as one string, a character for a byte, where lines are found
     * (string searches need no call out of the engine) and every line's first
     * bytes matched in place; undefined for a file past what one string may
     * hold, whose every line is read in full.
     */
    readonly text?: string,
  ) {}

  add(from: number, to: number): number {
    if (this.count === this.starts.length) this.grow();
    this.starts[this.count] = from;
    this.ends[this.count] = to;
    return this.count++;
  }

  /** Room for twice as many lines. */
  grow(): void {
    const starts = new Int32Array(this.starts.length * 2);
    starts.set(this.starts);
    this.starts = starts;
    const ends = new Int32Array(this.ends.length * 2);
    ends.set(this.ends);
    this.ends = ends;
  }

  /** Each line's first byte and its end, as arrays. */
  get from(): number[] {
    return Array.from(this.starts.subarray(0, this.count));
  }

  get to(): number[] {
    return Array.from(this.ends.subarray(0, this.count));
  }
}

/** The longest file made one string (V8's strings stop short of 2^29 characters). */
const MAX_TEXT = 256 * 1024 * 1024;

/** A line read in full: as readLine reads it, with the schema's answer (undefined: zod must give it). */
export type FullLine = { shape: LineShape; valid: boolean | undefined; step?: Step };

/** A scan's result as it is made: its stream an array lines are pushed on. */
type Making = Scanned & { stream: number[] };

/** What a scan makes of the lines: the stream, the header, what was skipped and why. */
export interface Scanned {
  lines: Lines;
  /** By stream position: the line it is, and its step id. */
  stream: ArrayLike<number>;
  streamIds: string[];
  /** Lines kept (valid steps or not). */
  kept: number;
  /** By line: the step, for the lines read in full. */
  steps: Map<number, Step>;
  skipped: Record<string, number>;
  /** The header's fields (the first line kept, when it is a `trajectory` line). */
  name?: string;
  parentTraj?: string;
  /** The stream's ids as one text (the WebAssembly scan's; cli/context-scan-wasm.ts's Taken), for ContextSource.idLines. */
  idText?: { text: string; at: Int32Array; base: number };
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

/**
 * Whether the kind written at `at`, `len` characters long, is one the stream
 * leaves out (OUT_OF_STREAM in lib/context/stream.ts, which test/unit/cli/context-scan.test.ts
 * holds this to): told by its length and first character before any comparison,
 * so a line of a kind in the stream costs a comparison or two.
 */
function outOfStream(text: string, at: number, len: number): boolean {
  switch (len) {
    case 4:
      return text.startsWith("wake", at);
    case 6:
      return text.startsWith("config", at);
    case 10:
      return text.charCodeAt(at) === 0x74 ? text.startsWith("trajectory", at) : text.startsWith("shellm-run", at);
    case 13:
      return text.startsWith("monolith-wake", at);
    default:
      return false;
  }
}
for (const kind of OUT_OF_STREAM) if (!outOfStream(kind, 0, kind.length)) throw new Error(`context-scan: ${kind} is out of the stream but not told so`);

/** The line decoded and read as readLine reads it, its value checked by the compiled schemas. */
export function readFull(lines: Lines, line: number, seen?: (id: string) => boolean): FullLine {
  const text = decoder.decode(lines.bytes.subarray(lines.starts[line], lines.ends[line]));
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
 *
 * The loop runs once a line, cold (a 10,000-step life is read once a run):
 * it calls as few functions as it can, and stores in typed arrays.
 */
export function scan(bytes: Buffer, full: ReadonlySet<number>, answers: ReadonlyMap<number, { valid: boolean; step?: Step }>, firstOnly = false): Scanned {
  if (!firstOnly && !full.size) {
    const taken = scanRegular(bytes, answers);
    if (taken) return taken;
  }
  const text = bytes.length <= MAX_TEXT ? bytes.toString("latin1") : undefined;
  const lines = new Lines(bytes, text);
  const out: Making = { lines, stream: [], streamIds: [], kept: 0, steps: new Map(), skipped: {}, askZod: [] };
  const seen = new Set<string>();
  const anyFull = full.size > 0;
  const n = bytes.length;
  let first = true;
  let at = 0;
  // Once the header is read, the lines as every writer writes them go through takeRegular; the others (and all, after a Rescan) come here.
  const regular = anyFull ? undefined : text;
  while (at < n) {
    // A line: from its first non-blank byte to its "\n" (a blank line is no line), as LineSplitter cuts it.
    let c = text !== undefined ? text.charCodeAt(at) : (bytes[at] ?? 0);
    if (c === 0x20 || c === NEWLINE || c === RETURN || c === 0x09) {
      at++;
      continue;
    }
    if (regular !== undefined && !first) {
      const next = takeRegular(regular, at, seen, out);
      if (next !== at) {
        at = next;
        continue;
      }
    }
    let nl = text !== undefined ? text.indexOf("\n", at) : bytes.indexOf(NEWLINE, at);
    if (nl < 0) nl = n;
    const from = at;
    const to = bytes[nl - 1] === RETURN ? nl - 1 : nl;
    at = nl + 1;
    if (nl - from > MAX_LINE_BYTES) {
      lines.overLong++;
      continue;
    }
    const line = lines.add(from, to);
    if (!first && text !== undefined && !(anyFull && full.has(line))) {
      // A line that begins as every writer writes one and ends with `}`: taken as the step of that kind and id (see above).
      let end = to;
      do c = text.charCodeAt(--end);
      while ((c === 0x20 || c === 0x09) && end > from);
      FIRST_BYTES.lastIndex = from;
      if (c === 0x7d && FIRST_BYTES.test(text) && FIRST_BYTES.lastIndex <= to) {
        const typeEnd = text.indexOf('"', from + 9);
        const id = text.slice(typeEnd + 13, FIRST_BYTES.lastIndex - 1);
        // Kept unless its id was read before: one look in the set, not two.
        const size = seen.size;
        if (seen.add(id).size === size) {
          skip(out, DUPLICATE);
          continue;
        }
        first = false;
        out.kept++;
        if (!outOfStream(text, from + 9, typeEnd - from - 9)) {
          out.stream.push(line);
          out.streamIds.push(id);
        }
        if (firstOnly) return out;
        continue;
      }
    }
    // The header is the first line kept: a line skipped before it leaves it to the next.
    if (!readSlow(out, line, first, seen, answers)) continue;
    first = false;
    if (firstOnly) return out;
  }
  if (lines.overLong > 0) skip(out, overLongReason(MAX_LINE_BYTES), lines.overLong);
  return out;
}

/**
 * The lines from `at` on that are what every writer writes, one after the
 * other: `{"type":"<kind>","step_id":"<id>"…}` from the line's first byte to
 * the byte before its "\n", within the length limit. Each is taken as the
 * general loop would take it (the same line numbers, duplicates skipped,
 * the stream's kinds kept); the first line of any other shape is left to it.
 * A loop of its own, doing no more than such a line needs: it runs once a
 * line, mostly before the optimizing compiler is done with it (a background
 * compile of some milliseconds), where every property read and call is a
 * call into the engine. Returns where it stopped.
 */
function takeRegular(text: string, at: number, seen: Set<string>, out: Making): number {
  const n = text.length;
  const { lines, stream, streamIds } = out;
  // Held in locals and written back at the end: the loop runs unoptimized, where every property read is a call.
  let { starts, ends, count } = lines;
  let kept = out.kept;
  let size = seen.size;
  while (at < n) {
    let nl = text.indexOf("\n", at);
    if (nl < 0) nl = n;
    if (text.charCodeAt(nl - 1) !== 0x7d || nl - at > MAX_LINE_BYTES) break;
    FIRST_BYTES.lastIndex = at;
    // The match cannot pass the line's end: no "\n" is in its classes.
    if (!FIRST_BYTES.test(text)) break;
    const from = at;
    at = nl + 1;
    const typeEnd = text.indexOf('"', from + 9);
    const id = text.slice(typeEnd + 13, FIRST_BYTES.lastIndex - 1);
    if (count === starts.length) {
      lines.count = count;
      lines.grow();
      ({ starts, ends } = lines);
    }
    starts[count] = from;
    ends[count] = nl;
    const line = count++;
    if (seen.add(id).size === size) {
      skip(out, DUPLICATE);
      continue;
    }
    size++;
    kept++;
    if (!outOfStream(text, from + 9, typeEnd - from - 9)) {
      stream.push(line);
      streamIds.push(id);
    }
  }
  lines.count = count;
  out.kept = kept;
  return at;
}

/**
 * The scan of a file whose lines after the header are all as every writer
 * writes them (cli/context-scan-wasm.ts), or undefined: the header, its first
 * line, is read in full as the general scan reads it, and the rest by the
 * WebAssembly function, which gives up at the first line of any other shape.
 */
function scanRegular(bytes: Buffer, answers: ReadonlyMap<number, { valid: boolean; step?: Step }>): Scanned | undefined {
  // A blank before the header, or a "\r" at its end, is left to the general scan.
  if (bytes[0] !== 0x7b) return undefined;
  let nl = bytes.indexOf(NEWLINE);
  if (nl < 0) nl = bytes.length;
  if (bytes[nl - 1] === RETURN || nl > MAX_LINE_BYTES) return undefined;
  const lines = new Lines(bytes);
  const out: Making = { lines, stream: [], streamIds: [], kept: 0, steps: new Map(), skipped: {}, askZod: [] };
  const seen = new Set<string>();
  if (!readSlow(out, lines.add(0, nl), true, seen, answers) || out.askZod.length) return undefined;
  const [headerId = ""] = seen;
  const taken = takeRegularLines(bytes, nl, nl + 1, headerId);
  if (!taken) return undefined;
  lines.starts = taken.starts;
  lines.ends = taken.ends;
  lines.count = taken.count;
  out.kept += taken.kept;
  if (taken.duplicates) skip(out, DUPLICATE, taken.duplicates);
  // The header is in the stream only when it is not a trajectory's header (the ids' text then lacks its id, and is not used).
  if (out.stream.length) return { ...out, stream: [...out.stream, ...taken.stream], streamIds: out.streamIds.concat(taken.streamIds) };
  return { ...out, stream: taken.stream, streamIds: taken.streamIds, idText: taken.idText };
}

const skip = (out: Scanned, reason: string, n = 1) => void (out.skipped[reason] = (out.skipped[reason] ?? 0) + n);

/** A line not taken by its first bytes: read in full (the header, a line of another shape, one named in `full`). */
function readSlow(out: Making, line: number, first: boolean, seen: Set<string>, answers: ReadonlyMap<number, { valid: boolean; step?: Step }>): boolean {
  const r = readFull(out.lines, line, (i) => seen.has(i));
  if (!r.shape.ok) {
    if (r.shape.reason !== "blank") skip(out, r.shape.reason);
    return false;
  }
  const id = r.shape.step_id;
  const answer = answers.get(line);
  if (r.valid === undefined && !answer) out.askZod.push(line);
  const valid = answer?.valid ?? r.valid ?? true;
  const step = answer?.step ?? r.step;
  if (valid && step) out.steps.set(line, step);
  if (first && r.shape.type === "trajectory") {
    const header: unknown = JSON.parse(r.shape.raw);
    if (header && typeof header === "object") {
      if ("name" in header && typeof header.name === "string") out.name = header.name;
      if ("parent_traj" in header && typeof header.parent_traj === "string") out.parentTraj = header.parent_traj;
    }
  }
  seen.add(id);
  out.kept++;
  // The context never sees a line that is not a valid step; it is counted with the skipped ones.
  if (!valid) skip(out, "not a valid step");
  else if (inStreamType(r.shape.type)) {
    out.stream.push(line);
    out.streamIds.push(id);
  }
  return true;
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
      if (!r.step || !r.shape.ok || r.shape.step_id !== s.streamIds[pos] || !inStreamType(r.step.type)) throw new Rescan(line);
      s.steps.set(line, r.step);
      return r.step;
    },
    // A slice of the ids, made by the engine: a block's thousand ids, or its first and last, are asked for again and again.
    ids: (from, to) => s.streamIds.slice(Math.max(0, from), Math.max(0, to)),
    // A slice of the ids' text (its ids are of FIRST_BYTES's class: printable ASCII), for a sealed summary's cites.
    idLines: (from, to) => {
      const t = s.idText;
      if (!t || from < 0 || to <= from || to > t.at.length) return undefined;
      return t.text.slice((t.at[from] ?? 0) - t.base - 1, to < t.at.length ? (t.at[to] ?? 0) - t.base : t.text.length);
    },
  };
}
