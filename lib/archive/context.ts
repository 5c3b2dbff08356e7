// What every format reader shares: the abort signal, the progress counter,
// the limits and their meter, and the wording of "this file is damaged" messages.
import type { ArchiveLimits, LimitMeter } from "./limits";
import { ArchiveError } from "./types";

export interface ReadContext {
  signal?: AbortSignal;
  progress: Progress;
  /** How the file is named to the person: ".zip", ".tar.gz", ".tar" or ".jsonl". */
  label: string;
  limits: ArchiveLimits;
  /** Counts this archive's entries and inflated bytes against `limits`. */
  meter: LimitMeter;
}

/** Reports bytes of the source handled so far; never goes backwards, never past the total. */
export class Progress {
  private done = 0;
  private lastReported = -1;

  constructor(
    readonly total: number,
    private readonly report?: (bytesRead: number, totalBytes: number) => void,
  ) {}

  add(bytes: number): void {
    if (bytes <= 0) return;
    this.done = Math.min(this.total, this.done + bytes);
    this.emit();
  }

  /** The whole source has been handled (skipped regions included): report the total once. */
  finish(): void {
    this.done = this.total;
    this.emit();
  }

  private emit(): void {
    if (!this.report || this.done === this.lastReported) return;
    this.lastReported = this.done;
    this.report(this.done, this.total);
  }
}

export function damaged(ctx: ReadContext, detail: string): ArchiveError {
  return new ArchiveError(`This ${ctx.label} file is damaged: ${detail}.`);
}

/** Errors that must pass through untouched: ours, and the caller's own abort. */
export function isOwnError(error: unknown, signal?: AbortSignal): boolean {
  if (error instanceof ArchiveError) return true;
  if (signal?.aborted && error === signal.reason) return true;
  return error instanceof DOMException && error.name === "AbortError";
}

/** The file vanished or changed under us (a File handle whose disk file was replaced). */
export function unreadable(error: unknown, signal?: AbortSignal): unknown {
  if (isOwnError(error, signal)) return error;
  return new ArchiveError("The file could not be read; it may have been moved or changed while it was being imported.");
}
