"use client";
// The stream's way into "what the model saw": on a run's prompt (its calls
// from the first) and on each step a call led to, the responder's included
// (its reply, or its decision not to or failure to reply: it is in no run, so
// its record is found by the step).
import type { Step } from "@/lib/trajectory/schema";
import type { InspectTarget } from "./useSeenContext";

const LED_TO = new Set(["reasoning", "thought", "error"]);

/** The responder's steps a call led to: a reply (it answers a message), a decision without a reply. */
function responderStep(step: Step): boolean {
  if (typeof step.trigger_step !== "string") return false;
  if (step.type === "message") return typeof step.reply_to === "string";
  return step.type === "observation" && step.source === "responder" && (step.decision === "no-reply" || step.decision === "reply-failed");
}

export function InspectButton({ step, onInspect }: { step: Step; onInspect?: (target: InspectTarget) => void }) {
  const runId = typeof step.run_id === "string" ? step.run_id : responderStep(step) ? String(step.trigger_step) : undefined;
  if (!onInspect || !runId || !(step.type === "prompt" || LED_TO.has(step.type) || responderStep(step))) return null;
  return (
    <button
      type="button"
      data-testid="inspect-context"
      className="mt-1 text-xs text-indigo-600 underline hover:text-indigo-800 dark:text-indigo-400"
      title="The exact messages this run's model call was sent, with their tokens"
      onClick={() => onInspect(step.type === "prompt" ? { runId } : { runId, stepId: step.step_id })}
    >
      what the model saw
    </button>
  );
}
