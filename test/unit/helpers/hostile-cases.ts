// Generated hostile inputs for the importer (test/unit/import/fuzz.test.ts):
// each case is a file, the limits it is read with, the valid lines planted in
// it (which must all be kept if the import succeeds), how many lines it holds
// over the line limit, and whether it must be refused. Deterministic per seed.
import { gzipSync } from "node:zlib";
import { writeZip } from "../../../lib/archive";
import type { ArchiveLimits } from "../../../lib/archive/limits";
import { MAX_LINE_BYTES } from "../../../lib/import/lines";
import { type RawFile, replaceBytes, tarBlob, tarGzBlob, withWrongCrc } from "./hostile";
import { mulberry32 } from "./random";

export interface HostileCase {
  seed: number;
  kind: string;
  /** What the file is called (its extension decides when the bytes do not). */
  name: string;
  blob: Blob;
  limits: Partial<ArchiveLimits> & { maxLineBytes: number };
  /** Ids of the lines that must be kept when the import succeeds. */
  planted: string[];
  /** Lines over maxLineBytes, when known exactly. */
  overLong?: number;
  /** "kept": must succeed; "refused": must fail (with a message like `refusal`); "either": no crash, no hang. */
  outcome: "kept" | "refused" | "either";
  refusal?: RegExp;
}

type Rng = () => number;
const enc = new TextEncoder();
const TS = "2025-01-01T00:00:00.000Z";
const hex = (n: number, width: number) => Math.floor(n).toString(16).padStart(width, "0").slice(-width);
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

/** `count` random bytes, none of them a newline. */
function noise(rng: Rng, count: number, newlines = false): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const byte = Math.floor(rng() * 256);
    out[i] = !newlines && byte === 0x0a ? 0x20 : byte;
  }
  return out;
}

const TEXT = [..."abc xyz 漢字 🙂 é \\\" \t<>&"];
const text = (rng: Rng, chars: number) => Array.from({ length: chars }, () => pick(rng, TEXT)).join("");

/** `head`, then `fill` bytes of `byte`, then `tail`: a long line made without a long string. */
function longLine(head: string, byte: number, fill: number, tail: string): Uint8Array {
  const h = enc.encode(head);
  const t = enc.encode(tail);
  const out = new Uint8Array(h.length + fill + t.length);
  out.set(h);
  out.fill(byte, h.length, h.length + fill);
  out.set(t, h.length + fill);
  return out;
}

/** Lines of a trajectory.jsonl: planted steps among every kind of bad line, within a line limit. */
class LineMix {
  readonly planted: string[] = [];
  overLong = 0;
  private readonly lines: Uint8Array[] = [];
  private readonly plantedLines: Uint8Array[] = [];
  private n = 0;

  constructor(
    private readonly rng: Rng,
    private readonly seed: number,
    private readonly limit: number,
  ) {}

  private id(): string {
    return `${hex(this.seed, 8)}-${hex(++this.n, 4)}-4000-8000-${hex(this.rng() * 2 ** 48, 12)}`;
  }

  private plant(line: string | Uint8Array, id: string): void {
    const bytes = typeof line === "string" ? enc.encode(line) : line;
    if (bytes.length + 1 > this.limit) throw new Error("a planted line over the limit");
    const kept = this.rng() < 0.2 ? new Uint8Array([...bytes, 0x0d]) : bytes;
    this.lines.push(kept);
    this.plantedLines.push(kept);
    this.planted.push(id);
  }

  /** A first line naming the trajectory, as Headlong writes it. */
  header(): this {
    const id = this.id();
    this.plant(JSON.stringify({ type: "trajectory", step_id: id, ts: TS, name: "hostile" }), id);
    return this;
  }

  fill(count: number): this {
    const rng = this.rng;
    for (let i = 0; i < count; i++) {
      const r = rng();
      if (r < 0.4) {
        const id = this.id();
        this.plant(JSON.stringify({ type: "thought", step_id: id, ts: TS, content: text(rng, int(rng, 0, 200)) }), id);
      } else if (r < 0.5) {
        // Kept though invalid: readers keep any object with a type and a step_id.
        const id = `not-a-uuid-${this.seed}-${++this.n}`;
        this.plant(JSON.stringify({ type: pick(rng, ["thought", "shell-output", "who-knows"]), step_id: id }), id);
      } else if (r < 0.6) {
        this.lines.push(noise(rng, int(rng, 0, Math.min(512, this.limit - 1)))); // bytes, UTF-8 or not
      } else if (r < 0.68) {
        // Over the limit, valid or not: skipped unread and counted.
        const over = int(rng, this.limit + 1, this.limit + Math.min(this.limit * 2, 200_000));
        const head = rng() < 0.5 ? `{"type":"thought","step_id":"${this.id()}","ts":"${TS}","content":"` : "";
        this.lines.push(longLine(head, 0x78, over - head.length, head ? '"}' : ""));
        this.overLong++;
      } else if (r < 0.74) {
        // Deeply nested: unbalanced, or balanced inside a step (a valid step of an unknown kind).
        const depth = Math.min(100_000, Math.floor((this.limit - 200) / 2));
        if (rng() < 0.5) this.lines.push(longLine("", 0x5b, Math.min(depth + 100, this.limit - 1), ""));
        else {
          const id = this.id();
          this.plant(`{"type":"nested","step_id":"${id}","ts":"${TS}","a":${"[".repeat(depth)}${"]".repeat(depth)}}`, id);
        }
      } else if (r < 0.78) {
        // Huge but within the limit: kept whole.
        const id = this.id();
        const head = `{"type":"thought","step_id":"${id}","ts":"${TS}","content":"`;
        this.plant(longLine(head, 0x79, Math.min(this.limit - 1, 300_000) - head.length - 2, '"}'), id);
      } else if (r < 0.86) this.lines.push(enc.encode(pick(rng, ["", "null", "[1,2]", '"text"', "42", "{}", '{"type":"thought"}', "{", "\u0000"])));
      else if (r < 0.92 && this.plantedLines.length > 0) this.lines.push(pick(rng, this.plantedLines)); // a duplicate, skipped
      else {
        const id = this.id();
        this.plant(JSON.stringify({ type: "message", step_id: id, ts: TS, from: "someone", content: text(rng, 20) }), id);
      }
    }
    return this;
  }

  bytes(): Uint8Array<ArrayBuffer> {
    const end = this.rng() < 0.7 ? 1 : 0;
    const out = new Uint8Array(Math.max(0, this.lines.reduce((n, l) => n + l.length + 1, 0) - 1 + end));
    let at = 0;
    for (const [i, line] of this.lines.entries()) {
      out.set(line, at);
      at += line.length;
      if (i < this.lines.length - 1 || end) out[at++] = 0x0a;
    }
    return out;
  }
}

/** The files of a tree: trajectories with their mixes, and extra entries (blobs, mind.json, tiers.jsonl). */
function tree(rng: Rng, seed: number, limit: number) {
  const files: RawFile[] = [];
  const planted: string[] = [];
  let overLong = 0;
  const dirs = ["a1b2c3d4-root", "a1b2c3d4-root/e5f6a7b8-child", "/abs/olute", "other"];
  for (let t = 0, count = int(rng, 1, 3); t < count; t++) {
    const mix = new LineMix(rng, seed * 8 + t, limit).fill(int(rng, 2, 25));
    const file = { name: `${dirs[t]}/trajectory.jsonl`, runs: [{ bytes: mix.bytes() }] };
    files.push(file);
    planted.push(...mix.planted);
    overLong += mix.overLong;
    if (rng() < 0.15) {
      files.push(file); // the same path twice: both are read
      overLong += mix.overLong;
    }
  }
  if (rng() < 0.4) files.push({ name: `${dirs[0]}/blobs/out-${seed}.stdout`, runs: [{ bytes: noise(rng, int(rng, 0, 4096), true) }] });
  if (rng() < 0.4) {
    const mind = pick(rng, ['{"name":"hostile"}', "{not json", `{"name":${"[".repeat(50_000)}${"]".repeat(50_000)}}`, "[]"]);
    files.push({ name: "mind.json", runs: [{ bytes: enc.encode(mind) }] });
  }
  if (rng() < 0.2) files.push({ name: `${dirs[0]}/tiers.jsonl`, runs: [{ bytes: noise(rng, 300, true) }] });
  // Folders first in no particular order: a child may come before its parent.
  if (rng() < 0.3) files.reverse();
  return { files, planted, overLong };
}

/** The tree as an archive of `format`; zip names are written clean, then patched (absolute and climbing names). */
async function packed(files: RawFile[], format: "tar" | "tar.gz" | "zip", rename: Record<string, string> = {}): Promise<Uint8Array<ArrayBuffer>> {
  if (format === "tar") return new Uint8Array(await tarBlob(files).arrayBuffer());
  // One gzip member, as real writers make: a cut anywhere in it is damage.
  if (format === "tar.gz") return new Uint8Array(gzipSync(new Uint8Array(await tarBlob(files).arrayBuffer())));
  const placeholders = new Map<string, string>();
  const entries = files.map((f) => {
    let path = f.name;
    for (const [from, to] of Object.entries({ "/abs/": "Qabs/", ...rename })) {
      if (path.startsWith(from)) {
        placeholders.set(to, from);
        path = to + path.slice(from.length);
      }
    }
    const data = new Uint8Array(f.runs.reduce((n, r) => n + r.bytes.length * (r.times ?? 1), 0));
    let at = 0;
    for (const r of f.runs) for (let i = 0; i < (r.times ?? 1); i++, at += r.bytes.length) data.set(r.bytes, at);
    return { path, data };
  });
  let bytes = new Uint8Array(await (await writeZip(entries)).arrayBuffer());
  for (const [to, from] of placeholders) bytes = replaceBytes(bytes, to, from);
  return bytes;
}

const FORMATS = ["tar", "tar.gz", "zip"] as const;
const nameFor = (format: string) => (format === "tar.gz" ? "hostile.tar.gz" : `hostile.${format}`);

export async function hostileCase(seed: number): Promise<HostileCase> {
  const rng = mulberry32(seed);
  const r = rng();
  // The default limit makes lines of 8 MiB: few cases, and lone .jsonl files only, so a thousand stay quick.
  const limit = r >= 0.1 && r < 0.25 && rng() < 0.1 ? MAX_LINE_BYTES : pick(rng, [1024, 4096, 65_536, 262_144]);
  const base = { seed, limits: { maxLineBytes: limit } };

  if (r < 0.1) {
    const head = pick(rng, [[], [0x1f, 0x8b], [0x50, 0x4b, 3, 4], [0x50, 0x4b, 5, 6], [0x7b]]);
    const bytes = new Uint8Array([...head, ...noise(rng, int(rng, 0, 32_768), true)]);
    return { ...base, kind: "random bytes", name: pick(rng, ["x.zip", "x.tar.gz", "x.tar", "x.jsonl", "x"]), blob: new Blob([bytes]), planted: [], outcome: "either" };
  }
  if (r < 0.25) {
    const mix = new LineMix(rng, seed, limit).header().fill(int(rng, 1, limit === MAX_LINE_BYTES ? 12 : 40));
    return { ...base, kind: "jsonl lines", name: pick(rng, ["trajectory.jsonl", "t.ndjson"]), blob: new Blob([mix.bytes()]), planted: mix.planted, overLong: mix.overLong, outcome: "kept" };
  }
  const format = pick(rng, FORMATS);
  if (r >= 0.7 && r < 0.8) return bomb(rng, base, format === "tar" ? "tar.gz" : format);
  const t = tree(rng, seed, limit);
  if (r < 0.5) {
    const bytes = await packed(t.files, format);
    return { ...base, kind: `${format} tree`, name: nameFor(format), blob: new Blob([bytes]), planted: t.planted, overLong: t.overLong, outcome: "kept" };
  }
  if (r < 0.62) {
    const compressed = format === "tar" ? pick(rng, ["tar.gz", "zip"] as const) : format;
    const bytes = await packed(t.files, compressed);
    const cut = int(rng, 1, bytes.length - 1);
    return { ...base, kind: `truncated ${compressed}`, name: nameFor(compressed), blob: new Blob([bytes.subarray(0, cut)]), planted: [], outcome: "refused" };
  }
  if (r < 0.7) {
    const bytes = (await packed(t.files, format)).slice();
    for (let i = int(rng, 1, 8); i > 0; i--) bytes[int(rng, 0, bytes.length - 1)] = Math.floor(rng() * 256);
    return { ...base, kind: `flipped ${format}`, name: nameFor(format), blob: new Blob([bytes]), planted: [], outcome: "either" };
  }
  if (r < 0.86) {
    const maxEntries = int(rng, 2, 30);
    const files = Array.from({ length: maxEntries + int(rng, 1, 20) }, (_, i) => ({ name: `d/blobs/${i}`, runs: [{ bytes: enc.encode(`${i}`) }] }));
    const bytes = await packed([...t.files, ...files], format);
    return { ...base, limits: { ...base.limits, maxEntries }, kind: `${format} of many entries`, name: nameFor(format), blob: new Blob([bytes]), planted: [], outcome: "refused", refusal: /^This \.(tar|tar\.gz|zip) file holds more than [\d,]+ entries, more than Reverie reads from one file; it was not read further\.$/ };
  }
  if (r < 0.95) {
    const climb = pick(rng, ["../", "a/../../"]);
    const files: RawFile[] = [...t.files];
    files.splice(int(rng, 0, files.length), 0, { name: `${climb}x/trajectory.jsonl`, runs: [{ bytes: enc.encode("{}\n") }] });
    const bytes = await packed(files, format, { [climb]: climb.replace(/\./g, "Q") });
    return { ...base, kind: `${format} climbing out`, name: nameFor(format), blob: new Blob([bytes]), planted: [], outcome: "refused", refusal: /^This \.(tar|tar\.gz|zip) file contains an unsafe path ".*" that points outside the archive\.$/ };
  }
  const zip = await packed(t.files, "zip");
  const index = t.files.findIndex((f) => f.name.endsWith("trajectory.jsonl"));
  return { ...base, kind: "zip with a wrong CRC", name: "hostile.zip", blob: new Blob([withWrongCrc(zip, index)]), planted: [], outcome: "refused", refusal: /does not match its checksum\.$/ };
}

/** Far more inflated than compressed, read with small limits so it is refused within a few megabytes. */
async function bomb(rng: Rng, base: Pick<HostileCase, "seed" | "limits">, format: "tar.gz" | "zip"): Promise<HostileCase> {
  const line = enc.encode(`${JSON.stringify({ type: "thought", step_id: `${hex(base.seed, 8)}-0000-4000-8000-000000000000`, ts: TS, content: "z".repeat(int(rng, 10, 400)) })}\n`);
  const unit = new Uint8Array(Math.floor(65_536 / line.length) * line.length);
  for (let at = 0; at < unit.length; at += line.length) unit.set(line, at);
  const runs = [{ bytes: unit, times: int(rng, 24, 48) }];
  const byCap = rng() < 0.3;
  const limits = byCap
    ? { ...base.limits, maxInflatedBytes: int(rng, 256, 1024) * 1024 }
    : { ...base.limits, maxInflateRatio: int(rng, 2, 20), inflateSlackBytes: int(rng, 64, 512) * 1024 };
  const files = [{ name: "bomb/trajectory.jsonl", runs }];
  // tar.gz as one gzip member per run: the run is compressed once however often it repeats.
  const bytes = format === "tar.gz" ? new Uint8Array(await tarGzBlob(files).arrayBuffer()) : await packed(files, format);
  const refusal = byCap ? /^This \.(tar\.gz|zip) file (says it )?inflates to more than [\d.]+ [KMG]iB, more than Reverie reads from one file; it was not read further\.$/ : /^This \.(tar\.gz|zip) file (says it )?inflates to [\d.]+ [KMG]?i?B from [\d.]+ [KMG]?i?B \([\d,]+ times\); it looks like a decompression bomb and was not read further\.$/;
  return { ...base, limits, kind: `${format} bomb`, name: nameFor(format), blob: new Blob([bytes]), planted: [], outcome: "refused", refusal };
}
