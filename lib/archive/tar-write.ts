// Writes a ustar stream, pulled one entry at a time so a large export is
// never whole in memory twice. Paths that do not fit ustar's name/prefix
// fields, or are not ASCII, go in a pax record, which every modern tar reads.
import { prepare, type PreparedEntry } from "./out-entry";
import { BLOCK, encodePax, encodeTarHeader, type HeaderFields, MAX_OCTAL_SIZE, paddingAfter } from "./tar-header";
import type { OutEntry } from "./types";

const CHUNK = 64 * 1024;
const encoder = new TextEncoder();

export function tarStream(entries: AsyncIterable<OutEntry> | Iterable<OutEntry>): ReadableStream<Uint8Array<ArrayBuffer>> {
  const it = iterate(entries);
  const now = new Date();
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      async pull(controller) {
        const next = await it.next();
        if (next.done) {
          controller.enqueue(new Uint8Array(BLOCK * 2)); // end-of-archive marker
          controller.close();
          return;
        }
        for (const chunk of encodeEntry(prepare(next.value, now))) controller.enqueue(chunk);
      },
      async cancel() {
        await it.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

async function* iterate<T>(items: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

function* encodeEntry(entry: PreparedEntry): Generator<Uint8Array<ArrayBuffer>> {
  const { data, mtime } = entry;
  const ustar = ustarName(entry.path, entry.name);
  const pax: [string, string][] = [];
  if (!ustar) pax.push(["path", entry.path]);
  if (data.length > MAX_OCTAL_SIZE) pax.push(["size", String(data.length)]);
  const fallback = encoder.encode(asciiTail(entry.path, 100));
  if (pax.length > 0) {
    const records = encodePax(pax);
    yield encodeTarHeader({ name: encoder.encode(asciiTail(`PaxHeader/${entry.path}`, 100)), size: records.length, mtime, type: "x" });
    yield records;
    yield new Uint8Array(paddingAfter(records.length));
  }
  const fields: HeaderFields = { ...(ustar ?? { name: fallback }), size: Math.min(data.length, MAX_OCTAL_SIZE), mtime, type: "0" };
  yield encodeTarHeader(fields);
  for (let at = 0; at < data.length; at += CHUNK) yield data.subarray(at, at + CHUNK);
  const padding = paddingAfter(data.length);
  if (padding > 0) yield new Uint8Array(padding);
}

/** ustar name (≤ 100 bytes) and prefix (≤ 155 bytes) for an ASCII path, split at a "/"; null when it cannot fit. */
function ustarName(path: string, bytes: Uint8Array<ArrayBuffer>): Pick<HeaderFields, "name" | "prefix"> | null {
  if (bytes.length !== path.length) return null; // not ASCII: pax says "UTF-8" unambiguously
  if (bytes.length <= 100) return { name: bytes };
  for (let slash = path.indexOf("/"); slash >= 0 && slash <= 155; slash = path.indexOf("/", slash + 1)) {
    const rest = bytes.length - slash - 1;
    if (rest > 0 && rest <= 100) return { name: bytes.subarray(slash + 1), prefix: bytes.subarray(0, slash) };
  }
  return null;
}

/** A stand-in name for tars that ignore pax: ASCII only, the end of the path kept. */
function asciiTail(path: string, max: number): string {
  return path.replace(/[^\x20-\x7e]/g, "_").slice(-max);
}
