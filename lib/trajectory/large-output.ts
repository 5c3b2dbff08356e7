// Outputs over 4096 bytes keep their first 4096 bytes inline (cut on a
// character boundary) and the whole text in a blob (TRAJECTORY.md).

export const INLINE_OUTPUT_BYTES = 4096;

export interface OutputField {
  /** The text kept inline in the step. */
  inline: string;
  /** Present when the text was cut: the blob to write and the step fields to add. */
  blob?: { name: string; text: string; bytes: number };
}

const encoder = new TextEncoder();

/** Cut `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to a character start.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

export function splitOutput(text: string, blobName: string): OutputField {
  const bytes = encoder.encode(text).length;
  if (bytes <= INLINE_OUTPUT_BYTES) return { inline: text };
  return { inline: cutUtf8(text, INLINE_OUTPUT_BYTES), blob: { name: blobName, text, bytes } };
}

/** The step fields for a cut output, e.g. stdout_ref, stdout_bytes, stdout_truncated. */
export function blobFields(field: "stdout" | "stderr", out: OutputField): Record<string, unknown> {
  if (!out.blob) return {};
  return {
    [`${field}_ref`]: `blobs/${out.blob.name}`,
    [`${field}_bytes`]: out.blob.bytes,
    [`${field}_truncated`]: true,
  };
}
