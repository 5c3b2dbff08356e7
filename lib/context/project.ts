// How each step reads to the model: the model's own reasoning before its
// code, no bookkeeping fields (run ids, timings, token counts), long fields cut
// with a hint to read them whole. lib/context/build.ts assembles the messages.
import { isKind } from "../trajectory/kind";
import type { Step } from "../trajectory/schema";
import { alarmText } from "../trajectory/summary";

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

/** Kinds that are bookkeeping: the model sees nothing of them. */
const BOOKKEEPING: ReadonlySet<string> = new Set(["trajectory", "shellm-run", "config", "monolith-wake"]);

/** How one step reads to the model, or null when it is bookkeeping. */
export function renderStep(step: Step, selfName: string): ChatMessage | null {
  const cut = (text: string) => cutField(text, step.step_id);
  if (BOOKKEEPING.has(step.type)) return null;
  if (isKind(step, "reasoning")) {
    const thought = cut(step.thought);
    const body = thought ? `${thought}\n\n${fence(cut(step.cmd))}` : fence(cut(step.cmd));
    return { role: "assistant", content: body };
  }
  if (isKind(step, "thought")) return { role: "assistant", content: cut(step.content) };
  if (isKind(step, "shell-output")) {
    const flags = [`exit=${step.exit}`];
    if (step.timed_out) flags.push("timed out");
    let body = `[output ${flags.join(" ")}]\n${cut(step.stdout)}`;
    const whole = `\`traj show ${step.step_id.slice(0, 8)} --full\``;
    if (step.stdout_truncated) body += `\n[… ${String(step.stdout_bytes)} bytes in all; ${whole} reads the rest]`;
    if (cut(step.stderr)) body += `\n[stderr]\n${cut(step.stderr)}`;
    if (step.stderr_truncated) body += `\n[… ${String(step.stderr_bytes)} bytes in all; ${whole} reads the rest]`;
    return { role: "user", content: body };
  }
  if (isKind(step, "message")) {
    const re = step.reply_to ? ` re ${cut(step.reply_to).slice(0, 8)}` : "";
    if (step.from === selfName) return { role: "user", content: `[sent message ${step.step_id} to ${cut(step.to)}${re}]\n${cut(step.content)}` };
    const tag = step.role ? ` (${cut(step.role)})` : "";
    return { role: "user", content: `[message ${step.step_id} from ${cut(step.from)}${tag} to ${cut(step.to)}${re}]\n${cut(step.content)}` };
  }
  if (isKind(step, "wake")) return { role: "user", content: `[woke: ${step.reason}, after ${step.delay_s} s]` };
  if (isKind(step, "alarm")) return { role: "user", content: `[alarm ${cut(alarmText(step))}]` };
  // The task itself is never cut.
  if (isKind(step, "prompt")) return { role: "user", content: step.content };
  if (isKind(step, "feedback")) return { role: "user", content: `[feedback] ${cut(step.content)}` };
  if (isKind(step, "final")) return { role: "user", content: `[run ended: FINAL=${cut(step.content)}]` };
  if (isKind(step, "error")) return { role: "user", content: `[error: ${cut(step.reason)}] ${cut(step.content)}` };
  // An alert is tagged as one, so the mind never reads a bot's words as a person's; a person's change to its memory or goals too.
  // A watcher's output (source watcher:NAME, lib/mind/watchers/watchers.ts) says which of its watchers printed it.
  if (isKind(step, "observation")) return { role: "user", content: `[${observationTag(step.source)}] ${cut(step.content)}` };
  // A change to the mind's own texts (its human's too, so never bookkeeping): the line, then the diff, cut like any long field.
  // Where its texts began (its harness wrote them at its first start: the texts it ran with before, whole) is not a change:
  // shown, it would put every text in the context again and change the first request after the upgrade. It reads them in self/.
  if (isKind(step, "self-edit")) return step.by.kind === "harness" && step.by.why === "first-start" ? null : { role: "user", content: `[self-edit] ${cut(step.content)}\n${cut(step.diff)}` };
  // Every other kind, known or not: its content when that is text.
  const body = typeof step.content === "string" ? cut(step.content) : "";
  return { role: "user", content: `[${step.type}]${body ? ` ${body}` : ""}` };
}

/** How an observation is tagged for the model, by where it came from. */
function observationTag(source: string | undefined): string {
  if (source === "alert" || source === "curation") return source;
  // A watcher's name is at most 40 characters; a foreign log's source may be anything.
  if (source?.startsWith("watcher:")) return `watcher ${source.slice("watcher:".length, "watcher:".length + 40)}`;
  return "observation";
}
