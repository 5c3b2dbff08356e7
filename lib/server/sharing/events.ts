import "server-only";
// The text/event-stream a live or invite link follows. Each step is one
// `event: step` with `id: <seq>`, so a browser's EventSource resumes from the
// last one it saw (Last-Event-ID) after any reconnect.
import { REVOKED_EVENT, STEP_EVENT } from "@/lib/sharing/wire";
import type { LiveEvent, LiveHub } from "./live";
import { apiError } from "../http/route";

export interface StreamOptions {
  heartbeatMs?: number;
  /** Bytes queued for a viewer that does not read; past it the stream ends and the viewer resumes by reconnecting. */
  maxQueuedBytes?: number;
  /** Streams one link may hold open in this process at once; past it, 429 (each open stream holds a connection and a subscriber). */
  maxPerLink?: number;
}

export const MAX_STREAMS_PER_LINK = 100;
/** Open streams by link id, in this process. */
const open = new Map<string, number>();

const encoder = new TextEncoder();

export function frame(event: LiveEvent): string {
  return event.kind === "step" ? `event: ${STEP_EVENT}\nid: ${event.step.seq}\ndata: ${JSON.stringify(event.step)}\n\n` : `event: ${REVOKED_EVENT}\ndata: {}\n\n`;
}

/** `readable`: the steps this link's holder may see (a guest: the conversation); the others are not sent. */
export function eventStream(hub: LiveHub, link: { id: string; mind: string }, after: number, signal: AbortSignal, opts: StreamOptions = {}, readable: (json: string) => boolean = () => true): Response {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxQueued = opts.maxQueuedBytes ?? 8 * 1024 * 1024;
  const maxPerLink = opts.maxPerLink ?? MAX_STREAMS_PER_LINK;
  const held = open.get(link.id) ?? 0;
  if (held >= maxPerLink) {
    return apiError(429, "too_many_viewers", `this link already has ${held} viewers following it, its limit here; close one, or try again shortly`, {}, { "Retry-After": "10" });
  }
  open.set(link.id, held + 1);
  let counted = true;
  const release = () => {
    if (!counted) return;
    counted = false;
    const n = (open.get(link.id) ?? 1) - 1;
    if (n > 0) open.set(link.id, n);
    else open.delete(link.id);
  };
  let cleanup = release;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let done = false;
        let leave: (() => void) | undefined;
        const heartbeat = setInterval(() => push(": keep-alive\n\n"), heartbeatMs);
        const finish = () => {
          if (done) return;
          done = true;
          release();
          clearInterval(heartbeat);
          leave?.();
          signal.removeEventListener("abort", finish);
          try {
            controller.close();
          } catch {
            // already closed or cancelled by the reader
          }
        };
        cleanup = finish;
        function push(text: string) {
          if (done) return;
          controller.enqueue(encoder.encode(text));
          if ((controller.desiredSize ?? 0) < -maxQueued) finish();
        }
        if (signal.aborted) return finish();
        signal.addEventListener("abort", finish);
        // Something at once, so the response (and its headers) leave now; retry sets EventSource's reconnect pause.
        push(`retry: 2000\n: following from seq ${after}\n\n`);
        hub
          .subscribe(link.mind, after, {
            link: link.id,
            send(event) {
              if (event.kind === "step" && !readable(event.step.json)) return;
              push(frame(event));
              if (event.kind === "revoked") finish();
            },
          })
          .then(
            (unsubscribe) => {
              leave = unsubscribe;
              if (done) unsubscribe();
            },
            (e: Error) => {
              console.error(`live links: could not follow a mind: ${e.message}`);
              finish();
            },
          );
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store, no-transform",
      Connection: "keep-alive",
      // Tells nginx-like proxies not to buffer the stream.
      "X-Accel-Buffering": "no",
    },
  });
}
