// A person's change to the mind's own texts (its owner, in Settings or
// Files): write a file, or revert an earlier self-edit. Whatever home holds
// the mind makes it the same way: the text it becomes is worked out here from
// the text as recorded, and the change is recorded as a self-edit whose step
// id is the request's (so a request is made once, wherever it is served). A
// change that cannot be made changes nothing and is recorded as an `error`
// step with that id, so the page that asked learns why.
import { applyPatch, parsePatch, reversePatch } from "diff";
import * as z from "zod";
import { SELF_FILES, type SelfFile } from "../../mind/self/self";
import type { NewStep, StepOf } from "../../trajectory/schema";
import { selfEditStep, sha256 } from "./edit";

/** A text the mind's owner may give one of its files, at most (the workspace's own limits come after). */
export const SELF_TEXT_CHARS = 100_000;

const SelfFileName = z.enum(SELF_FILES);
const id = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

export const SelfChange = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("write"),
    id,
    file: SelfFileName,
    text: z.string().max(SELF_TEXT_CHARS, `a text of the mind's is at most ${SELF_TEXT_CHARS} characters`),
    /** The sha of the text the person edited from: refused when the file has changed since (absent: whatever it is now). */
    base: z.string().optional(),
    by: z.string().max(200),
    via: z.enum(["files", "settings"]),
  }),
  z.object({ op: z.literal("revert"), id, of: id, by: z.string().max(200) }),
]);
export type SelfChange = z.infer<typeof SelfChange>;

export type SelfEdit = StepOf<"self-edit">;

/** What a change comes to, against the file's text as recorded: the step to append and the text to write, or the error step that says why not. */
export type SelfChangePlan = { file: SelfFile; text: string; step: NewStep & { type: "self-edit"; step_id: string } } | { refused: NewStep & { type: "error"; step_id: string } };

const fileOf = (path: string): SelfFile | null => {
  const name = path.startsWith("self/") ? path.slice(5) : "";
  return (SELF_FILES as readonly string[]).includes(name) ? (name as SelfFile) : null;
};

/**
 * Work out `c` against the texts as recorded (`current(file)`); `find(id)`
 * gives the self-edit a revert names (from the mind's own trajectory).
 */
export async function planSelfChange(c: SelfChange, current: (file: SelfFile) => string | null, find: (id: string) => Promise<SelfEdit | undefined>): Promise<SelfChangePlan> {
  const name = c.by.trim() || "Your owner";
  const refused = (why: string): SelfChangePlan => ({ refused: { type: "error", reason: "self-edit-refused", content: why, source: "system", step_id: c.id } });
  if (c.op === "write") {
    const was = current(c.file);
    if (c.base !== undefined && was !== null && (await sha256(was)) !== c.base) return refused(`${name}'s change to self/${c.file} was not made: the text changed since it was opened (the mind or another page changed it). Open it again to see the new text.`);
    if (was === c.text) return refused(`${name}'s change to self/${c.file} was not made: it is the text the file holds already.`);
    const step = await selfEditStep(`self/${c.file}`, was, c.text, { kind: "human", name, via: c.via });
    return { file: c.file, text: c.text, step: { ...step, step_id: c.id } };
  }
  const of = await find(c.of);
  if (!of) return refused(`${name}'s revert was not made: there is no change ${c.of.slice(0, 8)} to the mind's texts.`);
  const file = fileOf(of.path);
  if (!file) return refused(`${name}'s revert of ${c.of.slice(0, 8)} was not made: ${of.path} is not one of the mind's texts.`);
  if (of.before === null) return refused(`${name}'s revert of ${c.of.slice(0, 8)} was not made: it is where ${of.path} began, and the mind keeps its texts (change the text instead).`);
  const was = current(file) ?? "";
  const back = revertedText(of, was);
  if (back === false) return refused(`${name}'s revert of ${c.of.slice(0, 8)} was not made: ${of.path} changed since in the same lines; revert the later changes first.`);
  const step = await selfEditStep(of.path, was, back, { kind: "revert", of: of.step_id, name });
  return { file, text: back, step: { ...step, step_id: c.id } };
}

/** The text `was` with the lines self-edit `of` changed taken back out; false when later changes overlap them. */
export function revertedText(of: SelfEdit, was: string): string | false {
  const [patch] = parsePatch(of.diff);
  return patch ? applyPatch(was, reversePatch(patch)) : false;
}
