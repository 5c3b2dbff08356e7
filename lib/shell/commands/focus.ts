// focus: the mind's goals, kept as a Markdown checklist in /workspace/focus.md
// so the mind (and its human) can also read and edit it by hand. Only the
// checklist lines are touched; notes between them stay as they were.
import { FOCUS_FILE, focusLines, focusText, giveIds, goalLine, newGoalId as newId, NO_ID, oneLineGoal, openThenDone, parseGoals as parse } from "../focus-file";
import { WORKSPACE } from "../limits";
import type { ClockPort, IdsPort } from "../ports";
import { defineAgentCommand, fail, ok, usageError, type CommandIO, type CommandResult } from "./command";

export { FOCUS_FILE };

const USAGE = `usage: focus list              open goals, then done ones: <id> [ ] <goal> / <id> [x] <goal> (done <date>)
       focus set <goal…>       add a goal (text from stdin when none is given); prints it with its id
       focus done <id>         mark a goal done
Goals are the checklist in ${FOCUS_FILE} ("- [ ] <id> <goal>"); other lines there are left alone.`;

export const focus = defineAgentCommand<{ clock: ClockPort; ids: IdsPort }>({
  name: "focus",
  summary: "focus list|set|done   your goals (a checklist in focus.md)",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    if (args.includes("--help")) return ok(`${USAGE}\n`);
    const [sub, ...rest] = args;
    const lines = await readLines(io);
    const items = parse(lines);
    switch (sub) {
      case "list": {
        if (rest.length) return usageError(focus, `list takes no arguments, not '${rest.join(" ")}'`);
        if (!items.length) return ok("no goals yet; focus set <goal> adds one\n");
        return ok(openThenDone(items).map((i) => `${i.id} [${i.done ? "x" : " "}] ${i.goal}\n`).join(""));
      }
      case "set": {
        const goal = oneLineGoal(rest.length ? rest.join(" ") : io.stdin);
        if (!goal) return usageError(focus, "set needs the goal, as arguments or on stdin");
        const id = giveIds(lines, items, ports.ids) ? newId(items, ports.ids) : undefined;
        if (!id) return fail("focus set: could not find a free id; try again");
        lines.push(goalLine(id, goal));
        await write(io, lines);
        return ok(`${id} [ ] ${goal}\n`);
      }
      case "done": {
        if (rest.length !== 1) return usageError(focus, "done takes one goal id");
        const id = rest[0] as string;
        const item = items.find((i) => i.id === id && id !== NO_ID);
        if (!item) return fail(`focus done: no goal '${id}'; focus list shows the ids`);
        if (item.done) return fail(`focus done: ${id} is already done`);
        if (!giveIds(lines, items, ports.ids)) return fail("focus done: could not find a free id; try again");
        const date = new Date(ports.clock.now()).toISOString().slice(0, 10);
        lines[item.line] = goalLine(id, item.goal, date);
        await write(io, lines);
        return ok(`${id} [x] ${item.goal} (done ${date})\n`);
      }
      case undefined:
        return usageError(focus, "missing subcommand");
      default:
        return usageError(focus, `unknown subcommand '${sub}'`);
    }
  },
});

async function readLines(io: CommandIO): Promise<string[]> {
  if (!(await io.fs.exists(FOCUS_FILE))) return [];
  return focusLines(await io.fs.readFile(FOCUS_FILE));
}

async function write(io: CommandIO, lines: string[]): Promise<void> {
  await io.fs.mkdir(WORKSPACE, { recursive: true });
  await io.fs.writeFile(FOCUS_FILE, focusText(lines));
}
