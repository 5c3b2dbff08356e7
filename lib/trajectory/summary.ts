// One-line and short renderings of steps, shared by `traj tail`, the context
// projection and the page.
import { isKind, type Step } from "./schema";

/** A field of a kind this version does not know: text stays text, anything else is shown in JSON, nothing is "". */
const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** The main text a step carries, whatever its kind. */
export function stepText(step: Step): string {
  if (isKind(step, "reasoning")) return [step.thought, step.cmd && `$ ${step.cmd}`].filter(Boolean).join("\n");
  if (isKind(step, "shell-output")) return [step.stdout, step.stderr].filter(Boolean).join("\n");
  if (isKind(step, "message")) return `${step.from} → ${step.to}: ${step.content}`;
  if (isKind(step, "wake")) return `${step.reason} (level ${step.level}, after ${step.delay_s} s)`;
  if (isKind(step, "error")) return `${step.reason}: ${step.content}`;
  if (isKind(step, "fork")) return `child ${step.child}`;
  if (isKind(step, "shellm-run")) return step.model ?? "";
  if (isKind(step, "config")) return `model ${step.provider}/${step.model}`;
  if (isKind(step, "trajectory")) return step.name ?? "";
  // Every other kind, known or not, is shown by its content when it has one.
  return str(step.content);
}

/** `<8hex> <time> <type> <text on one line>` */
export function stepLine(step: Step, maxText = 120): string {
  const text = stepText(step).replace(/\s+/g, " ").trim();
  const cut = text.length > maxText ? `${text.slice(0, maxText - 1)}…` : text;
  const time = step.ts.slice(11, 19);
  return `${step.step_id.slice(0, 8)} ${time} ${step.type}${step.source ? ` [${step.source}]` : ""}${cut ? ` ${cut}` : ""}`;
}
