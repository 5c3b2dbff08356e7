// Split a model reply into reasoning (the text before the first fence) and
// code (the first block fenced as bash, sh or shell, or a bare fence). The
// block ends at a bare fence line; in a shell block, a fence inside a heredoc
// does not end it.

export interface ParsedReply {
  reasoning: string;
  /** The code to run, or null when the reply has no bash block. */
  code: string | null;
  /** Bash blocks after the first, which are not run. */
  droppedBlocks: number;
}

// A fence may be indented by up to three spaces (CommonMark), e.g. inside a
// list item; four or more make an indented line, not a fence.
const OPEN = /^( {0,3})```[ \t]*([A-Za-z0-9_+-]*)[ \t]*$/;
const CLOSE = /^ {0,3}```[ \t]*$/;
const SHELL_LANGS = new Set(["", "bash", "sh", "shell"]);
// At a `<<` (not the here-string `<<<`): `<<EOF`, `<<-EOF`, `<< 'EOF'`, `<<"EOF"`, `<<\EOF`.
const HEREDOC_AT = /<<(-?)[ \t]*\\?(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2/y;

interface Pending {
  delimiter: string;
  stripTabs: boolean;
}

/**
 * The heredocs a shell line opens. Quoted text ('…', "…" with its backslash
 * escapes, $'…') and a comment (a `#` that starts a word) are skipped, so a
 * `<<` inside them opens nothing; a backslash outside quotes escapes the next
 * character. Quotes are read within the line only.
 */
function heredocsOpenedBy(line: string): Pending[] {
  const out: Pending[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "\\") {
      i += 2;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      i = end < 0 ? line.length : end + 1;
    } else if (c === '"' || (c === "$" && line[i + 1] === "'")) {
      // "…" and $'…' both take backslash escapes.
      const quote = c === "$" ? "'" : '"';
      i += c === "$" ? 2 : 1;
      while (i < line.length && line[i] !== quote) i += line[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "#" && (i === 0 || /[\s;&|()]/.test(line[i - 1] ?? ""))) {
      break;
    } else if (c === "<" && line.startsWith("<<", i)) {
      if (line[i + 2] === "<") {
        i += 3;
        continue;
      }
      HEREDOC_AT.lastIndex = i;
      const m = HEREDOC_AT.exec(line);
      if (m) {
        out.push({ delimiter: m[3] ?? "", stripTabs: m[1] === "-" });
        i = HEREDOC_AT.lastIndex;
      } else {
        i += 2;
      }
    } else {
      i++;
    }
  }
  return out;
}

interface Block {
  /** The content lines, with up to the opening fence's indentation removed. */
  body: string[];
  /** The content lines as written. */
  raw: string[];
  /** The closing fence line, or null when the block runs to the end of the text. */
  close: string | null;
  next: number;
}

/**
 * Read a code block starting after its opening fence. `indent`: the spaces
 * before the opening fence, removed (as far as present) from each content
 * line. `heredocs`: whether the block is shell, where a fence inside a
 * heredoc does not end it.
 */
function readBlock(lines: string[], start: number, indent: number, heredocs: boolean): Block {
  const body: string[] = [];
  const raw: string[] = [];
  const pending: Pending[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const original = lines[i] ?? "";
    const line = indent > 0 ? original.replace(new RegExp(`^ {0,${indent}}`), "") : original;
    const open = pending[0];
    if (open) {
      body.push(line);
      raw.push(original);
      const candidate = open.stripTabs ? line.replace(/^\t+/, "") : line;
      if (candidate === open.delimiter) pending.shift();
      continue;
    }
    if (CLOSE.test(original)) return { body, raw, close: original, next: i + 1 };
    body.push(line);
    raw.push(original);
    if (heredocs) pending.push(...heredocsOpenedBy(line));
  }
  // An unclosed block (a cut-off reply) runs to the end of the text.
  return { body, raw, close: null, next: i };
}

export function parseReply(text: string): ParsedReply {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const before: string[] = [];
  let code: string | null = null;
  let dropped = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const open = OPEN.exec(line);
    if (!open) {
      if (code === null) before.push(line);
      i++;
      continue;
    }
    const lang = (open[2] ?? "").toLowerCase();
    const shell = SHELL_LANGS.has(lang);
    const block = readBlock(lines, i + 1, open[1]?.length ?? 0, shell);
    i = block.next;
    if (!shell) {
      // A block in another language is part of the reasoning, never run.
      if (code === null) before.push(line, ...block.raw, block.close ?? "```");
      continue;
    }
    if (code === null) code = block.body.join("\n");
    else dropped++;
  }
  return { reasoning: before.join("\n").trim(), code, droppedBlocks: dropped };
}
