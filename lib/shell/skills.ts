// Installed skills: Markdown files in /workspace/skills whose front matter says
// what they are for. The prompt builder offers each by its one-line
// description (listSkills); the mind reads the whole file when it needs it.
import type { IFileSystem } from "just-bash";
import type { FileRecord } from "../mind/state/state";
import { fieldText, parseFrontMatter } from "./front-matter";
import { WORKSPACE } from "./limits";

export { parseFrontMatter } from "./front-matter";

export const SKILLS_DIR = `${WORKSPACE}/skills`;
export const SKILL_NAME = /^[a-z0-9][a-z0-9._-]{0,59}$/;
/** Longest description offered in the prompt; longer ones are cut there (the file keeps them). */
export const SKILL_DESCRIPTION_CHARS = 200;

export interface SkillInfo {
  name: string;
  description: string;
}

/**
 * The description of a skill file: its front matter `description:`, or else
 * its first non-empty line without a leading Markdown `#`. Undefined when
 * there is none, or the text is binary.
 */
export function skillDescription(text: string): string | undefined {
  if (text.includes("\0")) return undefined;
  const { fields, body } = parseFrontMatter(text);
  const line = fieldText(fields, "description") ?? body.split(/\r?\n/).find((l) => l.trim() !== "");
  const description = line?.replace(/^#+\s*/, "").trim();
  return description ? description : undefined;
}

export const skillPath = (name: string) => `${SKILLS_DIR}/${name}.md`;

/** What listing skills reads: the workspace, or its saved rows (recordsReader). */
export type SkillReader = Pick<IFileSystem, "readdir" | "readFile">;

/** Installed skills sorted by name; files that are not valid skills are left out, never an error. */
export async function listSkills(fs: SkillReader): Promise<SkillInfo[]> {
  let names: string[];
  try {
    names = await fs.readdir(SKILLS_DIR);
  } catch {
    return []; // no skills directory yet
  }
  const out: SkillInfo[] = [];
  for (const file of names) {
    const name = file.endsWith(".md") ? file.slice(0, -3) : "";
    if (!SKILL_NAME.test(name)) continue;
    let text: string;
    try {
      text = await fs.readFile(skillPath(name));
    } catch {
      continue; // a directory, or a file gone since readdir
    }
    const description = skillDescription(text);
    if (description) out.push({ name, description: cut(description) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function cut(s: string): string {
  const chars = [...s];
  return chars.length > SKILL_DESCRIPTION_CHARS ? `${chars.slice(0, SKILL_DESCRIPTION_CHARS - 1).join("")}…` : s;
}

const utf8 = new TextDecoder();

/**
 * Saved workspace rows read as the workspace would show them, for the
 * prompt's skill list before the sandbox is loaded (the browser worker loads
 * it while the first model call is out). Only files: a symlinked skill is
 * listed once the workspace itself is read.
 */
export function recordsReader(records: readonly FileRecord[]): SkillReader {
  const byPath = new Map(records.map((r) => [r.path, r]));
  return {
    async readdir(dir: string) {
      const prefix = `${dir.replace(/\/+$/, "")}/`;
      if (byPath.get(dir)?.kind !== "dir" && !records.some((r) => r.path.startsWith(prefix))) throw new Error(`ENOENT: ${dir}`);
      return records.filter((r) => r.path.startsWith(prefix) && !r.path.slice(prefix.length).includes("/")).map((r) => r.path.slice(prefix.length));
    },
    async readFile(path: string) {
      const r = byPath.get(path);
      if (r?.kind !== "file") throw new Error(`not a file: ${path}`);
      return utf8.decode(r.data ?? new Uint8Array());
    },
  };
}
