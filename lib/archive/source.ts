// Reading the source Blob, the only place bytes enter: every read checks the
// abort signal and counts toward progress, so no format can forget either.
import { type ReadContext, unreadable } from "./context";

/**
 * Pieces handed downstream are at most this big. A Blob held in memory may
 * stream as one huge chunk; cutting it keeps progress smooth and bounds how
 * much a decompressor inflates in one go.
 */
const PIECE = 64 * 1024;

/**
 * The blob as a stream that pulls only on demand (highWaterMark 0), so
 * progress tracks what the parser really consumed, and stops at abort.
 */
export function sourceStream(blob: Blob, ctx: ReadContext): ReadableStream<Uint8Array<ArrayBuffer>> {
  let reader: ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>> | undefined;
  let pending: Uint8Array<ArrayBuffer> | undefined;
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      async pull(controller) {
        ctx.signal?.throwIfAborted();
        while (!pending?.length) {
          reader ??= blob.stream().getReader();
          let chunk: ReadableStreamReadResult<Uint8Array<ArrayBuffer>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            throw unreadable(error, ctx.signal);
          }
          ctx.signal?.throwIfAborted();
          if (chunk.done) {
            controller.close();
            return;
          }
          pending = chunk.value;
        }
        const piece = pending.subarray(0, PIECE);
        pending = pending.subarray(piece.length);
        ctx.progress.add(piece.length);
        controller.enqueue(piece);
      },
      async cancel(reason) {
        await reader?.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Bytes [start, end) of the blob, for formats with random access (zip). */
export async function readRange(blob: Blob, start: number, end: number, ctx: Pick<ReadContext, "signal" | "progress">, count = true): Promise<Uint8Array> {
  ctx.signal?.throwIfAborted();
  let buffer: ArrayBuffer;
  try {
    buffer = await blob.slice(start, end).arrayBuffer();
  } catch (error) {
    throw unreadable(error, ctx.signal);
  }
  ctx.signal?.throwIfAborted();
  if (count) ctx.progress.add(buffer.byteLength);
  return new Uint8Array(buffer);
}
