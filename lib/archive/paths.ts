// One rule for entry paths, used by readers (what callers see) and writers
// (what other tools will see): "/"-separated, relative, no "." segments, and
// no ".." — an archive must never name a file outside the folder it unpacks to.

/** The cleaned path, "" for an entry that names no file, or null when it climbs out with "..". */
export function cleanPath(raw: string): string | null {
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return null;
  return parts.join("/");
}
