// sub: change one exact, unique piece of a file. Exact (no regex) so quoting
// never changes the meaning; unique so an edit cannot land in the wrong place.
import { defineAgentCommand, fail, ok, resolvePath, usageError, type CommandIO, type CommandResult } from "./command";
import { writeAtomically } from "./put";

const USAGE = `usage: sub <file> <old> <new>
       sub <file> --old-file F --new-file G     (either flag alone works too, with the other text as an argument)
Replace the one occurrence of the exact text <old> in <file> with <new> (no regex, no escapes).
<old> must occur exactly once: give more surrounding text when it occurs more often.
--old-file/--new-file read the text from a file, exactly (a heredoc's final newline included).
Put -- before <old> when it starts with '--'. The file is rewritten atomically.`;

export const sub = defineAgentCommand({
  name: "sub",
  summary: "sub <file> <old> <new>   replace one exact, unique occurrence of a string in a file",
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    if (helpAsked(args)) return ok(`${USAGE}\n`);
    const positional: string[] = [];
    let oldFile: string | undefined;
    let newFile: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === "--") {
        positional.push(...args.slice(i + 1));
        break;
      }
      if (a === "--old-file" || a === "--new-file") {
        const value = args[++i];
        if (value === undefined) return usageError(sub, `${a} needs a file`);
        if (a === "--old-file") oldFile = value;
        else newFile = value;
      } else if (a.startsWith("--")) return usageError(sub, `unknown option '${a}'`);
      else positional.push(a);
    }
    const wanted = 1 + (oldFile === undefined ? 1 : 0) + (newFile === undefined ? 1 : 0);
    if (positional.length !== wanted) return usageError(sub, `expected ${wanted} argument${wanted === 1 ? "" : "s"}, got ${positional.length}`);
    const [file, ...texts] = positional as [string, ...string[]];

    const oldText = oldFile === undefined ? texts.shift() : await readText(io, oldFile);
    const newText = newFile === undefined ? texts.shift() : await readText(io, newFile);
    if (oldText === undefined) return fail(`sub: cannot read --old-file ${oldFile}`);
    if (newText === undefined) return fail(`sub: cannot read --new-file ${newFile}`);
    if (oldText === "") return usageError(sub, "<old> is empty; give the text to replace");

    const path = resolvePath(io, file);
    const content = await readText(io, file);
    if (content === undefined) return fail(`sub: no such file ${file}`);
    if (content.includes("\0")) return fail(`sub: ${file} looks binary (it has NUL bytes); sub edits text files`);

    const count = content.split(oldText).length - 1;
    if (count === 0) return fail(`sub: '${shown(oldText)}' not found in ${file}`);
    if (count > 1) return fail(`sub: '${shown(oldText)}' occurs ${count} times in ${file}; give more context so it is unique`);
    const at = content.indexOf(oldText);
    const error = await writeAtomically(io.fs, path, content.slice(0, at) + newText + content.slice(at + oldText.length));
    if (error) return fail(`sub: cannot write ${file}: ${error}`);
    return ok(`replaced 1 occurrence in ${file}\n`);
  },
});

async function readText(io: CommandIO, file: string): Promise<string | undefined> {
  try {
    return await io.fs.readFile(resolvePath(io, file));
  } catch {
    return undefined;
  }
}

// Long or multi-line text is shown by its start, so the message stays one short line.
function shown(text: string): string {
  const first = text.split("\n")[0] as string;
  const chars = [...first];
  return chars.length > 60 || first !== text ? `${chars.slice(0, 60).join("")}…` : text;
}

/** `--help` before any `--`: after it, words are the text to replace. */
function helpAsked(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--help");
}
