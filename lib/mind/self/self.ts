// A mind's harness texts (its instructions, first look, responder and
// summarizer: lib/mind/self/defaults/*.md) are templates with {{slots}}; this
// renders them. Pure.

/** What a template's slots are filled with, by name: `{{name}}` takes `values.name`. */
export type SelfValues = Readonly<Record<string, string>>;

/** A template's pieces in order: literal text, or a slot that has a value. */
type Piece = string | { slot: string };

const SLOT = /\{\{([a-z][a-z0-9-]*)\}\}/g;

/** The persona as every template shows it: trimmed, or a line saying there is none. */
export function personaText(persona: string): string {
  return persona.trim() || "(No persona was given.)";
}

/**
 * A template's pieces. Its body is the file minus the one newline a file ends
 * with (the texts themselves end without one). Slots are found here, once, in
 * the template: a value is never scanned, so a persona holding `{{commands}}`
 * stays as written. A slot with no value stays literal text.
 */
function piecesOf(file: string, values: SelfValues): Piece[] {
  const body = file.endsWith("\n") ? file.slice(0, -1) : file;
  const pieces: Piece[] = [];
  let from = 0;
  for (const m of body.matchAll(SLOT)) {
    const slot = m[1] ?? "";
    if (!Object.hasOwn(values, slot)) continue;
    pieces.push(body.slice(from, m.index), { slot });
    from = m.index + m[0].length;
  }
  pieces.push(body.slice(from));
  return pieces;
}

const textOf = (piece: Piece, values: SelfValues): string => (typeof piece === "string" ? piece : (values[piece.slot] ?? ""));

/** A template with its slots filled in. */
export function renderSelf(file: string, values: SelfValues): string {
  return piecesOf(file, values)
    .map((p) => textOf(p, values))
    .join("");
}

/** A template rendered and cut at some of its slots: the text before the first, then each one's value and the text after it, up to the next. */
export interface SelfCut<K extends string> {
  head: string;
  /** A cut slot's value and the text after it, up to the next cut. */
  at(slot: K): { value: string; after: string };
}

/**
 * A template rendered, and cut at `cuts` (for the parts "what the model saw"
 * shows): each must be in it exactly once, in that order; the other slots are
 * filled in place. Undefined when the template is not of that shape. Joined
 * in order (head, then each value and after), the cut is renderSelf's text.
 */
export function renderCut<K extends string>(file: string, values: SelfValues & Readonly<Record<K, string>>, cuts: readonly K[]): SelfCut<K> | undefined {
  let head = "";
  const at = new Map<K, { value: string; after: string }>();
  let open: { value: string; after: string } | undefined;
  let next = 0;
  for (const piece of piecesOf(file, values)) {
    const cut = typeof piece === "string" ? -1 : cuts.findIndex((c) => c === piece.slot);
    if (cut < 0) {
      const text = textOf(piece, values);
      if (open) open.after += text;
      else head += text;
      continue;
    }
    const slot = cuts[cut];
    if (cut !== next || slot === undefined) return undefined;
    open = { value: values[slot], after: "" };
    at.set(slot, open);
    next++;
  }
  // Every slot was found once, in order: each has its part.
  return next === cuts.length ? { head, at: (slot) => at.get(slot) ?? { value: "", after: "" } } : undefined;
}

import type { StepOf } from "../../trajectory/schema";

/** The mind's own texts, the files of /workspace/self/ the harness reads (watchers/ beside them are programs, not texts). */
export const SELF_FILES = ["persona.md", "instructions.md", "first-look.md", "responder.md", "summarizer.md"] as const;
export type SelfFile = (typeof SELF_FILES)[number];

/** One of its texts as last recorded: the text, and its sha256 (hex) when its home computed one (the parts of a call show it). */
export interface SelfText {
  text: string;
  sha?: string;
}
export type SelfTexts = Readonly<Record<SelfFile, SelfText>>;

/**
 * The mind's own texts as its home recorded them (lib/home/self-ledger.ts).
 * Every thinker reads them at the start of each run; a run keeps the texts it
 * started with. After each block, `settle` records what the block changed
 * under self/ (a `self-edit` step each, in the mind's own trajectory) and only
 * then do the new texts take effect, from the next run on.
 */
export interface SelfPort {
  texts(): SelfTexts;
  /** After a block of run `run` (in trajectory `traj`): record and adopt what it changed; `refused` writes the sandbox turned away (its rate) get one error step. */
  settle(by: { run: string; traj: string }, refused?: number): Promise<void>;
  /** `self merge`: make a trial's texts (each with the sha it was forked from) the mind's own, as self-edits citing the try's child trajectory; refused when one changed since the fork. */
  merge(trial: string, tryChild: string, texts: ReadonlyMap<SelfFile, { text: string; base: string }>): Promise<{ ok: true; edits: StepOf<"self-edit">[] } | { ok: false; error: string }>;
  /** Which adoption of texts the store is at: a run reads it as it starts, with the texts. */
  version(): number;
  /** A thinker's run that started at `version`, whose calls were made from `used` (its texts' files), ended so: the guard (issue 24, part 6) counts the runs after an edit that used the edited text. */
  ran(version: number, outcome: { end: string; reason?: string }, used: readonly SelfFile[]): Promise<void>;
}
