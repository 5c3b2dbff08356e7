// An imported archive's results.json (what `reverie eval --out` wrote beside
// its mind.json): kept as it came, in a blob row of the archive named as the
// file is. Trajectory blobs are always named `[<dir>/]blobs/<file>`, so this
// name never meets one; the rows of an import that never commits go with it.
import { EVAL_RESULTS_FILE, parseEvalResults, type EvalResults } from "../../eval/results";
import type { ReverieDb } from "../db/db";

export const RESULTS_BLOB = EVAL_RESULTS_FILE;

/** The scoreboard's results, why they cannot be read, or null when the archive has none. */
export type ArchiveResults = { ok: true; results: EvalResults } | { ok: false; error: string } | null;

export async function putResultsText(db: ReverieDb, owner: string, text: string): Promise<void> {
  await db.blobs.put({ mind_id: owner, name: RESULTS_BLOB, text });
}

export async function getResultsText(db: ReverieDb, owner: string): Promise<string | undefined> {
  return (await db.blobs.get([owner, RESULTS_BLOB]))?.text;
}

/** Parsed on every read, never trusted: a file from another version says why it is not shown. */
export async function readArchiveResults(db: ReverieDb, owner: string): Promise<ArchiveResults> {
  const text = await getResultsText(db, owner);
  return text === undefined ? null : parseEvalResults(text);
}
