// The mind's goals as `focus` keeps them: a Markdown checklist in
// /workspace/focus.md ("- [ ] <id> <goal>"), other lines left alone. Shared by
// the `focus` command and the mind's Memory tab, so both read it the same way.
import { WORKSPACE } from "./limits";

export const FOCUS_FILE = `${WORKSPACE}/focus.md`;

// `- [ ] 1a2b goal`; a hand-written item without an id is given one on the next write.
const ITEM = /^- \[([ xX])\] (?:([0-9a-f]{4}) )?(.*)$/;
/** The id of a hand-written goal that has none yet. */
export const NO_ID = "----";

export interface Goal {
  /** Its line in the file, from 0. */
  line: number;
  id: string;
  done: boolean;
  goal: string;
}

/** The file's lines, without the empty one its final newline would make. */
export function focusLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function parseGoals(lines: readonly string[]): Goal[] {
  const goals: Goal[] = [];
  lines.forEach((text, line) => {
    const m = ITEM.exec(text.replace(/\r$/, ""));
    if (m) goals.push({ line, id: m[2] ?? NO_ID, done: m[1] !== " ", goal: m[3] as string });
  });
  return goals;
}

/** Open goals, then done ones, each in file order (as `focus list` prints them). */
export function openThenDone(goals: readonly Goal[]): Goal[] {
  return [...goals.filter((g) => !g.done), ...goals.filter((g) => g.done)];
}
