import "server-only";
// A request body read with a byte cap: refused as soon as it passes the cap,
// by its Content-Length or by what actually arrives, so a huge or endless
// body is never buffered whole. The proxy and the sync routes both read this way.

/** The body's bytes, or "too_large" once they pass `limit` (the stream is cancelled there). */
export async function readCapped(request: Request, limit: number): Promise<Buffer | "too_large"> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) return "too_large";
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return "too_large";
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
