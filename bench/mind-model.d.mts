// Types of bench/mind-model.mjs, for the unit test that drives it (test/unit/bench-instant-model.test.ts).
export interface InstantCall {
  n: number;
  /** performance.now() when the request arrived, and when its answer was sent. */
  at: number;
  sent: number;
  /** UTF-8 bytes of the request's messages, as JSON. */
  promptChars: number;
}

export interface InstantModel {
  url: string;
  calls: InstantCall[];
  readonly preflights: number;
  close(): Promise<void>;
}

export function replyText(n: number): string;
export function promptSpan(body: Buffer): { model: unknown; promptBytes: number };
export function startInstantModel(): Promise<InstantModel>;
