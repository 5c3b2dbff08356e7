// The record of a change to one of the mind's own texts under
// /workspace/self/ (a `self-edit` step): both hashes, a unified diff, who
// made it, and a line that says it. Every route that changes self/ (the
// mind's shell, its human in Files or Settings, a revert, the harness itself)
// builds its step here, so they agree byte for byte; and the texts a step
// records can be had back from the steps alone (foldSelfEdits).
import { applyPatch, formatPatch, structuredPatch, type StructuredPatch } from "diff";
import type { NewStep, SelfEditBy, StepOf } from "../../trajectory/schema";

type SelfEdit = StepOf<"self-edit">;
export type NewSelfEdit = Extract<NewStep, { type: "self-edit" }>;

/** Past this many changed lines the diff is written as "all of it out, all of it in" rather than searched for (a search is quadratic at worst). */
const MAX_EDIT_LENGTH = 1_000;

/** sha256 of a text's UTF-8 bytes, lower-case hex. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The unified diff from `before` to `after` (null: no file), with a/ and b/ names as git writes them. */
export function selfDiff(path: string, before: string | null, after: string | null): string {
  const from = before === null ? "/dev/null" : `a/${path}`;
  const to = after === null ? "/dev/null" : `b/${path}`;
  const patch = structuredPatch(from, to, before ?? "", after ?? "", undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  return formatPatch(patch ?? wholeReplacement(from, to, before ?? "", after ?? ""), { includeIndex: false, includeUnderline: false, includeFileHeaders: true });
}

/** One hunk that takes every old line out and puts every new one in: what a change too large to search for is written as. */
function wholeReplacement(from: string, to: string, before: string, after: string): StructuredPatch {
  const out = structuredPatch(from, to, before, "", undefined, undefined, { context: 0 }).hunks[0];
  const into = structuredPatch(from, to, "", after, undefined, undefined, { context: 0 }).hunks[0];
  return {
    oldFileName: from,
    newFileName: to,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: out ? 1 : 0,
        oldLines: out?.oldLines ?? 0,
        newStart: into ? 1 : 0,
        newLines: into?.newLines ?? 0,
        lines: [...(out?.lines ?? []), ...(into?.lines ?? [])],
      },
    ],
  };
}

/** Lines a diff adds and takes out. */
export function diffCounts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

/** What a change does to a file, in words: "changed … (+3 −1)", "created … (12 lines)", "removed …". */
function whatHappened(path: string, before: string | null, after: string | null, diff: string): string {
  if (before === null) {
    const n = after === null ? 0 : lineCount(after);
    return `created ${path} (${n} line${n === 1 ? "" : "s"})`;
  }
  if (after === null) return `removed ${path}`;
  const { added, removed } = diffCounts(diff);
  return `changed ${path} (+${added} −${removed})`;
}

const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

/** The line a self-edit says, for people and for the model (in the mind's voice: these are its own texts). */
function contentOf(by: SelfEditBy, what: string): string {
  switch (by.kind) {
    case "mind":
      return `I ${what}.`;
    case "human":
      return `${by.name} ${what.replace(/^(\w+) /, "$1 your ")} in ${by.via === "files" ? "Files" : "Settings"}.`;
    case "revert":
      return `${by.name} reverted ${by.of.slice(0, 8)}: ${what}.`;
    case "merge":
      return `I ${what}, merging trial ${by.trial} (tried in ${by.try.slice(0, 8)}).`;
    case "guard":
      return `My harness took back ${by.of.slice(0, 8)}: ${what}, as the runs after it all failed.`;
    case "harness":
      if (by.why === "first-start") return `My own texts begin: ${what}, as my harness wrote it at my first start.`;
      if (by.why === "watcher-failed") return `My harness ${what}: the watcher kept failing, so it is turned off.`;
      return `${what.replace(/^\w/, (c) => c.toUpperCase())} with no step to say so; recorded now, when my harness found it.`;
  }
}

/**
 * The self-edit step for `path` (workspace-relative, "self/…") going from
 * `before` to `after` (null: no file), by `by`. The diff is checked to give
 * `after` back from `before`; if it ever does not (a text the diff library
 * cannot round-trip), the step carries the whole text as `after_text`, so
 * the texts can always be had back from the steps.
 */
export async function selfEditStep(path: string, before: string | null, after: string | null, by: SelfEditBy): Promise<NewSelfEdit> {
  const diff = selfDiff(path, before, after);
  const [beforeSha, afterSha] = await Promise.all([before === null ? null : sha256(before), after === null ? null : sha256(after)]);
  const roundTrips = applyPatch(before ?? "", diff) === (after ?? "");
  return {
    type: "self-edit",
    path,
    before: beforeSha,
    after: afterSha,
    diff,
    by,
    content: contentOf(by, whatHappened(path, before, after, diff)),
    source: by.kind === "mind" ? "shell" : "system",
    ...(roundTrips ? {} : { after_text: after }),
  };
}

/**
 * Each path's text as a trajectory's self-edits (oldest first) leave it: the
 * diffs applied in order from no file. A path whose diffs do not apply (a
 * damaged log) is `undefined`: its text cannot be known from the steps.
 */
export function foldSelfEdits(steps: readonly SelfEdit[]): Map<string, string | null | undefined> {
  const texts = new Map<string, string | null | undefined>();
  for (const s of steps) {
    const was = texts.has(s.path) ? texts.get(s.path) : null;
    const whole = (s as { after_text?: unknown }).after_text;
    if (typeof whole === "string" || (whole === null && s.after === null)) {
      texts.set(s.path, whole);
      continue;
    }
    if (was === undefined) continue;
    const next = applyPatch(was ?? "", s.diff);
    texts.set(s.path, next === false ? undefined : s.after === null ? null : next);
  }
  return texts;
}
