// A trajectory line's shape, the part of reading it that needs no schema:
// JSON, an object, a string `type` and `step_id`, not an id already read.
// headlong.ts's readLine checks the rest against the step schemas; the
// command line's context checks it against their compiled form
// (cli/step-check.ts), and so loads no zod.

/**
 * Headlong's variants of a kind, read as the valid steps they are
 * (TRAJECTORY.md): its test fixtures write `shell-output` with `exit_code`
 * where its shellm writes `exit`. The line itself is kept as it was (`raw`),
 * so an export gives it back byte for byte.
 */
export function restoreVariant(value: object): object {
  if ("type" in value && value.type === "shell-output" && !("exit" in value) && "exit_code" in value && typeof value.exit_code === "number") return { ...value, exit: value.exit_code };
  return value;
}

/** The first character of any JSON text (after white space, which readLine trims). */
const JSON_START = /^[{["\-0-9tfn]/;

/** Why a line whose step_id was already read is skipped. */
export const DUPLICATE = "duplicate step_id";

/** Why a line is skipped before its schema is asked: blank, not JSON, not a JSON object, no type or step_id, a duplicate id. */
export type LineShape = { ok: false; reason: string } | { ok: true; value: object; type: string; step_id: string; raw: string };

/**
 * A line's shape: what every kept line has (TRAJECTORY.md: readers skip the
 * rest), its value as a step is to be checked (restoreVariant applied), and
 * the line as read (trimmed). `seen` says which ids were already read: such a
 * line is a DUPLICATE, before its schema is asked.
 */
export function readLineShape(line: string, seen?: (stepId: string) => boolean): LineShape {
  const raw = line.trim();
  if (!raw) return { ok: false, reason: "blank" };
  // What cannot be JSON, or not an object, is told without JSON.parse: its exception costs microseconds, and junk may come by the million.
  if (!JSON_START.test(raw) || (raw[0] === "{" && raw[raw.length - 1] !== "}")) return { ok: false, reason: "not JSON" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not a JSON object" };
  const type = "type" in value ? value.type : undefined;
  const step_id = "step_id" in value ? value.step_id : undefined;
  if (typeof type !== "string" || typeof step_id !== "string" || !type || !step_id) return { ok: false, reason: "no type or step_id" };
  if (seen?.(step_id)) return { ok: false, reason: DUPLICATE };
  return { ok: true, value: restoreVariant(value), type, step_id, raw };
}
