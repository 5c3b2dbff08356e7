// How each step reads to the model: the model's own reasoning before its
// code, no bookkeeping fields (run ids, timings, token counts), long fields cut
// with a hint to read them whole. lib/context/build.ts assembles the messages.
import type { Step } from "../trajectory/schema";

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

const fence = (code: string) => "```bash\n" + code + "\n```";

/** A field longer than this is cut for the model, with a hint to read it whole. */
export const MAX_FIELD_CHARS = 2000;
const HEAD_CHARS = 1500;
const TAIL_CHARS = 400;

/** Cut at a character boundary: never between the two halves of a surrogate pair. */
function sliceChars(text: string, from: number, to: number): string {
  let a = from;
  let b = to;
  if (a > 0 && /[\udc00-\udfff]/.test(text[a] ?? "")) a++;
  if (b < text.length && /[\ud800-\udbff]/.test(text[b - 1] ?? "")) b--;
  return text.slice(a, b);
}

/** A long field as the model sees it: head, a one-line hint naming how to read it all, tail. */
export function cutField(text: string, stepId: string): string {
  if (text.length <= MAX_FIELD_CHARS) return text;
  const cut = text.length - HEAD_CHARS - TAIL_CHARS;
  return `${sliceChars(text, 0, HEAD_CHARS)}\n[… ${cut} more characters here; \`traj show ${stepId.slice(0, 8)} --full\` reads it all]\n${sliceChars(text, text.length - TAIL_CHARS, text.length)}`;
}

/** How one step reads to the model, or null when it is bookkeeping. */
export function renderStep(step: Step, selfName: string): ChatMessage | null {
  const s = step as Record<string, unknown>;
  const raw = (k: string) => (typeof s[k] === "string" ? (s[k] as string) : "");
  const text = (k: string) => cutField(raw(k), step.step_id);
  switch (step.type) {
    case "trajectory":
    case "shellm-run":
    case "config":
    case "monolith-wake":
      return null;
    case "reasoning": {
      const thought = text("thought");
      const body = thought ? `${thought}\n\n${fence(text("cmd"))}` : fence(text("cmd"));
      return { role: "assistant", content: body };
    }
    case "thought":
      return { role: "assistant", content: text("content") };
    case "shell-output": {
      const flags = [`exit=${String(s.exit)}`];
      if (s.timed_out) flags.push("timed out");
      let body = `[output ${flags.join(" ")}]\n${text("stdout")}`;
      const whole = `\`traj show ${step.step_id.slice(0, 8)} --full\``;
      if (s.stdout_truncated) body += `\n[… ${String(s.stdout_bytes)} bytes in all; ${whole} reads the rest]`;
      if (text("stderr")) body += `\n[stderr]\n${text("stderr")}`;
      if (s.stderr_truncated) body += `\n[… ${String(s.stderr_bytes)} bytes in all; ${whole} reads the rest]`;
      return { role: "user", content: body };
    }
    case "message": {
      const re = text("reply_to") ? ` re ${text("reply_to").slice(0, 8)}` : "";
      if (text("from") === selfName) {
        return { role: "user", content: `[sent message ${step.step_id} to ${text("to")}${re}]\n${text("content")}` };
      }
      return { role: "user", content: `[message ${step.step_id} from ${text("from")} to ${text("to")}${re}]\n${text("content")}` };
    }
    case "wake":
      return { role: "user", content: `[woke: ${text("reason")}, after ${String(s.delay_s)} s]` };
    case "prompt":
      // The task itself is never cut.
      return { role: "user", content: raw("content") };
    case "feedback":
      return { role: "user", content: `[feedback] ${text("content")}` };
    case "final":
      return { role: "user", content: `[run ended: FINAL=${text("content")}]` };
    case "error":
      return { role: "user", content: `[error: ${text("reason")}] ${text("content")}` };
    case "observation":
      return { role: "user", content: `[observation] ${text("content")}` };
    default: {
      const body = text("content");
      return { role: "user", content: `[${step.type}]${body ? ` ${body}` : ""}` };
    }
  }
}
