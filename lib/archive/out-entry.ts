// What both writers need from an OutEntry: a path other tools will unpack
// where the caller expects, the bytes, and a timestamp.
import { cleanPath } from "./paths";
import type { OutEntry } from "./types";

export interface PreparedEntry {
  path: string;
  /** The path as UTF-8. */
  name: Uint8Array<ArrayBuffer>;
  data: Uint8Array<ArrayBuffer>;
  mtime: Date;
}

const encoder = new TextEncoder();

export function prepare(entry: OutEntry, now: Date): PreparedEntry {
  const path = cleanPath(entry.path);
  if (!path || path !== entry.path) {
    throw new TypeError(`Archive entry paths must be relative, "/"-separated, without "." or ".." parts: ${JSON.stringify(entry.path)}`);
  }
  const data = typeof entry.data === "string" ? encoder.encode(entry.data) : owned(entry.data);
  return { path, name: encoder.encode(path), data, mtime: entry.mtime ?? now };
}

/** Blob and stream sinks want bytes over a plain ArrayBuffer; copy only a shared one. */
function owned(data: Uint8Array): Uint8Array<ArrayBuffer> {
  return data.buffer instanceof ArrayBuffer ? (data as Uint8Array<ArrayBuffer>) : new Uint8Array(data);
}
