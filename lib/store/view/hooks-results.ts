// The React hook over an imported archive's results.json (the scoreboard of a
// `reverie eval --out` run). Read once per archive: an archive never changes
// after its import, so a live query would only collect other tabs' writes.
"use client";
import { useEffect, useState } from "react";
import { db } from "../db/db";
import { readArchiveResults, type ArchiveResults } from "../minds/results";

/** undefined while loading; null when the archive has no results.json. */
export function useArchiveResults(id: string): ArchiveResults | undefined {
  const [read, setRead] = useState<{ id: string; results: ArchiveResults }>();
  useEffect(() => {
    let live = true;
    readArchiveResults(db(), id).then(
      (results) => live && setRead({ id, results }),
      (e: unknown) => live && setRead({ id, results: { ok: false, error: `results.json could not be read: ${e instanceof Error ? e.message : String(e)}` } }),
    );
    return () => {
      live = false;
    };
  }, [id]);
  return read?.id === id ? read.results : undefined;
}
