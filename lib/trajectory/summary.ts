// One-line and short renderings of steps, shared by `traj tail`, the context
// projection and the page.
import { isKind } from "./kind";
import type { SelfEditBy, Step, StepOf } from "./schema";

/** A field of a kind this version does not know: text stays text, anything else is shown in JSON, nothing is "". */
const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** The main text a step carries, whatever its kind. */
export function stepText(step: Step): string {
  if (isKind(step, "reasoning")) return [step.thought, step.cmd && `$ ${step.cmd}`].filter(Boolean).join("\n");
  if (isKind(step, "shell-output")) return [step.stdout, step.stderr].filter(Boolean).join("\n");
  if (isKind(step, "message")) return `${step.from} → ${step.to}: ${step.content}`;
  if (isKind(step, "wake")) return `${step.reason} (level ${step.level}, after ${step.delay_s} s)`;
  if (isKind(step, "alarm")) return alarmText(step);
  if (isKind(step, "error")) return `${step.reason}: ${step.content}`;
  if (isKind(step, "fork")) return `child ${step.child}`;
  if (isKind(step, "shellm-run")) return step.model ?? "";
  if (isKind(step, "config")) return `model ${step.provider}/${step.model}`;
  if (isKind(step, "trajectory")) return step.name ?? "";
  // The line, not the diff: a list of steps stays one line each.
  if (isKind(step, "self-edit")) return step.content;
  // Every other kind, known or not, is shown by its content when it has one.
  return str(step.content);
}

/** An alarm step as a person (and the model) reads it: `set 1a2b3c4d for 2026-12-01 09:00:00Z: call Ada`, `cancelled 1a2b3c4d`, `1a2b3c4d rang`. */
export function alarmText(step: StepOf<"alarm">): string {
  const id = step.alarm.slice(0, 8);
  if (step.op === "set") return `set ${id} for ${step.at ? alarmTime(Date.parse(step.at)) : "?"}: ${step.note ?? ""}`;
  return step.op === "cancel" ? `cancelled ${id}` : `${id} rang`;
}

/** An alarm's time, to the second, in UTC: `2026-12-01 09:00:00Z`. */
export function alarmTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

/** `<8hex> <time> <type> <text on one line>` */
export function stepLine(step: Step, maxText = 120): string {
  const text = stepText(step).replace(/\s+/g, " ").trim();
  const cut = text.length > maxText ? `${text.slice(0, maxText - 1)}…` : text;
  const time = step.ts.slice(11, 19);
  return `${step.step_id.slice(0, 8)} ${time} ${step.type}${step.source ? ` [${step.source}]` : ""}${cut ? ` ${cut}` : ""}`;
}

/** Who made a self-edit (a change to the mind's own texts), in a few words: the stream's and Settings' history's. */
export function selfEditWho(by: SelfEditBy): string {
  switch (by.kind) {
    case "mind":
      return `the mind (run ${by.run.slice(0, 8)})`;
    case "human":
      return `${by.name || "its human"} in ${by.via === "files" ? "Files" : "Settings"}`;
    case "revert":
      return `${by.name || "its human"}, reverting ${by.of.slice(0, 8)}`;
    case "merge":
      return `the mind, merging trial ${by.trial} (tried in ${by.try.slice(0, 8)})`;
    case "guard":
      return `the harness's guard, taking back ${by.of.slice(0, 8)}`;
    case "harness":
      return by.why === "first-start" ? "the harness, at the first start" : by.why === "watcher-failed" ? "the harness, turning off a failing watcher" : "the harness, finding an unrecorded change";
  }
}
