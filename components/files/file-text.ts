// A workspace file's bytes as something a person can read: text (at most the
// first MiB of it), or a note that it is binary.
export const VIEW_LIMIT = 1024 * 1024;

export type FileText = { kind: "text"; text: string; size: number; truncated: boolean } | { kind: "binary"; size: number };

/** Text when the bytes shown are valid UTF-8 without NULs; a character cut at the limit does not count against it. */
export function fileText(data: Uint8Array, limit = VIEW_LIMIT): FileText {
  const size = data.length;
  const shown = size > limit ? data.subarray(0, limit) : data;
  if (shown.includes(0)) return { kind: "binary", size };
  try {
    // `stream` keeps a multi-byte character split by the cut from being an error.
    const text = new TextDecoder("utf-8", { fatal: true }).decode(shown, { stream: size > limit });
    return { kind: "text", text, size, truncated: size > limit };
  } catch {
    return { kind: "binary", size };
  }
}

export function sizeText(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? "" : "s"}`;
  if (n < 1024 * 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${+(n / 1024 / 1024).toFixed(1)} MiB`;
}
