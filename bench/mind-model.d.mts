// Types of bench/mind-model.mjs, for the unit test that drives it (test/unit/bench/instant-model.test.ts).
export interface InstantCall {
  n: number;
  /** performance.now() when the request arrived, and when its answer was sent (its last byte written). */
  at: number;
  sent: number;
  /** UTF-8 bytes of the request's messages, as JSON. */
  promptChars: number;
  /** Characters of the reply per streamed event (0: the answer in one write). */
  chunk: number;
}

/** A call of bench/fetch-floor.mjs's bare worker to the same server. */
export interface FloorCall {
  n: number;
  at: number;
  sent: number;
  chunk: number;
}

export interface InstantModelOptions {
  chunk?: number;
  interleave?: number;
  delayMs?: number;
  noDelay?: boolean;
}

export interface InstantModel {
  url: string;
  calls: InstantCall[];
  floorCalls: FloorCall[];
  options: Required<InstantModelOptions>;
  readonly preflights: number;
  close(): Promise<void>;
}

export function replyText(n: number): string;
export function answerWrites(n: number, model: unknown, chunk?: number): string[];
export function modelOptionsFromEnv(env?: Record<string, string | undefined>): Required<InstantModelOptions>;
export function promptSpan(body: Buffer): { model: unknown; promptBytes: number };
export function startInstantModel(options?: InstantModelOptions): Promise<InstantModel>;
