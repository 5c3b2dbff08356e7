// The flat front matter of the mind's Markdown files (memories, skills):
//   ---
//   key: value
//   tags: [a, b]
//   ---
//   body
// Only this subset is read or written, so no YAML library: a hand-edited file
// that goes beyond it keeps working as long as its flat keys are readable.

export type FrontMatterValue = string | string[];

export interface FrontMatter {
  /** The flat fields, in file order; empty when the file has none. */
  fields: Record<string, FrontMatterValue>;
  /** Everything after the closing `---` (the whole text when there is no front matter). */
  body: string;
  hasFrontMatter: boolean;
}

const OPEN = /^---\r?\n/;
const CLOSE = /(?:^|\r?\n)---[ \t]*(?:\r?\n|$)/;
const FIELD = /^([A-Za-z0-9_-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/** Never throws: text without a well-formed `---` block is all body. */
export function parseFrontMatter(text: string): FrontMatter {
  const open = OPEN.exec(text);
  if (!open) return { fields: {}, body: text, hasFrontMatter: false };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { fields: {}, body: text, hasFrontMatter: false };
  const fields: Record<string, FrontMatterValue> = {};
  for (const line of rest.slice(0, close.index).split(/\r?\n/)) {
    const m = FIELD.exec(line);
    if (m) fields[m[1] as string] = parseValue(m[2] as string);
  }
  return { fields, body: rest.slice(close.index + close[0].length), hasFrontMatter: true };
}

function parseValue(raw: string): FrontMatterValue {
  if (raw.startsWith("[") && raw.endsWith("]")) {
    return raw.slice(1, -1).split(",").map(unquote).filter((s) => s !== "");
  }
  return unquote(raw);
}

// Hand-written YAML often quotes strings; the quotes are not part of the value.
function unquote(s: string): string {
  const t = s.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.at(-1) === t[0] ? t.slice(1, -1) : t;
}

/** A field as one string (a list is joined with ", "), or undefined when absent or empty. */
export function fieldText(fields: Record<string, FrontMatterValue>, key: string): string | undefined {
  const v = fields[key];
  const s = Array.isArray(v) ? v.join(", ") : v?.trim();
  return s ? s : undefined;
}

/** A field as a list; a plain `a, b` string counts too, since people write it that way. */
export function fieldList(fields: Record<string, FrontMatterValue>, key: string): string[] {
  const v = fields[key];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter((s) => s !== "");
}

/** The inverse of parseFrontMatter for the flat subset; values are single lines. */
export function formatFrontMatter(fields: Record<string, FrontMatterValue>, body: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(", ")}]` : oneLine(v)}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, " ").trim();
