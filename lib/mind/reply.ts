// Split a model reply into reasoning (the text before the first fence) and
// code (the first block fenced as bash, sh or shell, or a bare fence). The
// block ends at a bare fence line; a fence inside a heredoc does not end it.

export interface ParsedReply {
  reasoning: string;
  /** The code to run, or null when the reply has no bash block. */
  code: string | null;
  /** Bash blocks after the first, which are not run. */
  droppedBlocks: number;
}

const OPEN = /^```[ \t]*([A-Za-z0-9_+-]*)[ \t]*$/;
const CLOSE = /^```[ \t]*$/;
const SHELL_LANGS = new Set(["", "bash", "sh", "shell"]);
// `<<EOF`, `<<-EOF`, `<< 'EOF'`, `<<"EOF"`; not the here-string `<<<`.
const HEREDOC = /(?<!<)<<(?!<)(-?)[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2/g;

interface Pending {
  delimiter: string;
  stripTabs: boolean;
}

function heredocsOpenedBy(line: string): Pending[] {
  const out: Pending[] = [];
  for (const m of line.matchAll(HEREDOC)) {
    // A `#` before the operator makes it a comment, not a heredoc.
    const before = line.slice(0, m.index);
    if (/(^|\s)#/.test(before)) break;
    out.push({ delimiter: m[3] ?? "", stripTabs: m[1] === "-" });
  }
  return out;
}

/** Read a code block starting after its opening fence; returns its lines and the index after it. */
function readBlock(lines: string[], start: number): { body: string[]; next: number } {
  const body: string[] = [];
  const pending: Pending[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const open = pending[0];
    if (open) {
      body.push(line);
      const candidate = open.stripTabs ? line.replace(/^\t+/, "") : line;
      if (candidate === open.delimiter) pending.shift();
      continue;
    }
    if (CLOSE.test(line)) return { body, next: i + 1 };
    body.push(line);
    pending.push(...heredocsOpenedBy(line));
  }
  // An unclosed block (a cut-off reply) runs to the end of the text.
  return { body, next: i };
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
    const lang = (open[1] ?? "").toLowerCase();
    const block = readBlock(lines, i + 1);
    i = block.next;
    if (!SHELL_LANGS.has(lang)) {
      // A block in another language is part of the reasoning, never run.
      if (code === null) before.push(line, ...block.body, "```");
      continue;
    }
    if (code === null) code = block.body.join("\n");
    else dropped++;
  }
  return { reasoning: before.join("\n").trim(), code, droppedBlocks: dropped };
}
