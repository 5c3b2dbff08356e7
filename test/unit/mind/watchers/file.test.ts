// A watcher's file (lib/mind/watchers/file.ts): the header that names the step
// types it runs after and whether it is on, read and changed.
import { describe, expect, it } from "vitest";
import { parseTypes, parseWatcher, watcherText, WATCHER_TYPES, withEnabled } from "@/lib/mind/watchers/file";

const KINDS = WATCHER_TYPES.join(", ");

describe("a watcher's file", () => {
  it("reads its header: the types it runs after, and whether it is on", () => {
    expect(parseWatcher("# on: thought, message\necho hi\n")).toEqual({ ok: true, on: ["thought", "message"], enabled: true });
    expect(parseWatcher("#!/bin/bash\n#on:thought observation,thought\n# enabled: yes\necho hi\n")).toEqual({ ok: true, on: ["thought", "observation"], enabled: true });
    expect(parseWatcher("# on: thought\n# enabled: no (failed 3 times in a row: exit 1: oops)\necho hi\n")).toEqual({ ok: true, on: ["thought"], enabled: false, why: "failed 3 times in a row: exit 1: oops" });
    expect(parseWatcher("# on: thought\n# Enabled: NO\n")).toEqual({ ok: true, on: ["thought"], enabled: false });
    // Only the header counts: a line after the first that is not a comment is the script's.
    expect(parseWatcher("# on: thought\necho hi\n# enabled: no\n")).toEqual({ ok: true, on: ["thought"], enabled: true });
  });

  it("says why a header cannot run", () => {
    expect(parseWatcher("echo hi\n# on: thought\n")).toEqual({ ok: false, error: "its header has no '# on: TYPES' line (the step types it runs after)" });
    expect(parseWatcher("# on:\n")).toEqual({ ok: false, error: "it names no step types to run after (e.g. '# on: thought')" });
    expect(parseWatcher("# on: thought, thoughts\n")).toEqual({ ok: false, error: `'thoughts' is not a step type (they are: ${KINDS})` });
    expect(parseTypes("Thought,nap")).toBe(`'Thought', 'nap' are not step types (they are: ${KINDS})`);
    expect(parseWatcher("# on: thought\n# enabled: maybe\n")).toEqual({ ok: false, error: "its '# enabled:' line says 'maybe'; it is 'yes', or 'no (why)'" });
  });

  it("is written with its header, and turned off and on in its header", () => {
    const text = watcherText(["thought", "message"], "jq -r .content");
    expect(text).toBe("# on: thought, message\njq -r .content\n");
    const off = withEnabled(text, { enabled: false, why: "too chatty\n(for now)" });
    expect(off).toBe("# on: thought, message\n# enabled: no (too chatty for now)\njq -r .content\n");
    expect(withEnabled(off as string, { enabled: false, why: "" })).toBe("# on: thought, message\n# enabled: no\njq -r .content\n");
    expect(withEnabled(off as string, { enabled: true })).toBe("# on: thought, message\n# enabled: yes\njq -r .content\n");
    expect(withEnabled(text, { enabled: true })).toBe(text);
    expect(withEnabled("#!/bin/bash\n# note\n# on: thought\necho\n", { enabled: false, why: "x".repeat(300) })).toBe(`#!/bin/bash\n# note\n# on: thought\n# enabled: no (${"x".repeat(199)}…)\necho\n`);
    expect(withEnabled("echo hi\n", { enabled: false, why: "x" })).toBeUndefined();
  });
});
