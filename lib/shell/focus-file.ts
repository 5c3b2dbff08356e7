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

/** A goal's checklist line; a done goal says when (`done` is its date, YYYY-MM-DD). */
export function goalLine(id: string, goal: string, done?: string): string {
  return done === undefined ? `- [ ] ${id} ${goal}` : `- [x] ${id} ${goal} (done ${done})`;
}

/** Ids for hand-written goals, so every goal can be named; false when none could be found. Changes `lines` and `goals`. */
export function giveIds(lines: string[], goals: Goal[], ids: { uuid(): string }): boolean {
  for (const goal of goals.filter((g) => g.id === NO_ID)) {
    const id = newGoalId(goals, ids);
    if (!id) return false;
    goal.id = id;
    lines[goal.line] = `- [${goal.done ? "x" : " "}] ${id} ${goal.goal}`;
  }
  return true;
}

/** Four hex characters from the end of a uuid (its random tail); redrawn while taken. */
export function newGoalId(goals: readonly Goal[], ids: { uuid(): string }): string | undefined {
  for (let tries = 0; tries < 50; tries++) {
    const id = ids.uuid().replace(/-/g, "").slice(-4).toLowerCase();
    if (/^[0-9a-f]{4}$/.test(id) && !goals.some((g) => g.id === id)) return id;
  }
  return undefined;
}

/** A goal as `focus set` keeps it: one line, spaces folded. */
export const oneLineGoal = (text: string) => text.replace(/\s+/g, " ").trim();

/** The file's text for these lines. */
export const focusText = (lines: readonly string[]) => `${lines.join("\n")}\n`;
