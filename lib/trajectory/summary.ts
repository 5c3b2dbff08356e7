// One-line and short renderings of steps, shared by `traj tail`, the context
// projection and the page.
import type { Step } from "./schema";

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** The main text a step carries, whatever its kind. */
export function stepText(step: Step): string {
  const s = step as Record<string, unknown>;
  switch (step.type) {
    case "reasoning":
      return [str(s.thought), str(s.cmd) && `$ ${str(s.cmd)}`].filter(Boolean).join("\n");
    case "shell-output":
      return [str(s.stdout), str(s.stderr)].filter(Boolean).join("\n");
    case "message":
      return `${str(s.from)} → ${str(s.to)}: ${str(s.content)}`;
    case "wake":
      return `${str(s.reason)} (level ${str(s.level)}, after ${str(s.delay_s)} s)`;
    case "error":
      return `${str(s.reason)}: ${str(s.content)}`;
    case "fork":
      return `child ${str(s.child)}`;
    case "shellm-run":
      return str(s.model);
    case "config":
      return `model ${str(s.provider)}/${str(s.model)}`;
    case "trajectory":
      return str(s.name);
    default:
      if ("content" in s) return str(s.content);
      return "";
  }
}

/** `<8hex> <time> <type> <text on one line>` */
export function stepLine(step: Step, maxText = 120): string {
  const text = stepText(step).replace(/\s+/g, " ").trim();
  const cut = text.length > maxText ? `${text.slice(0, maxText - 1)}…` : text;
  const time = step.ts.slice(11, 19);
  return `${step.step_id.slice(0, 8)} ${time} ${step.type}${step.source ? ` [${step.source}]` : ""}${cut ? ` ${cut}` : ""}`;
}
