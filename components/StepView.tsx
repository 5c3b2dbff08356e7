"use client";
// One step of the stream. Everything a mind wrote is untrusted: it is shown
// as text (React escapes it), never as HTML.
import type { Step } from "@/lib/trajectory/schema";
import { stepText } from "@/lib/trajectory/summary";

const TYPE_STYLE: Record<string, string> = {
  reasoning: "border-indigo-400",
  "shell-output": "border-stone-400",
  message: "border-emerald-500",
  thought: "border-violet-400",
  final: "border-sky-400",
  error: "border-red-500",
  wake: "border-amber-300",
  feedback: "border-emerald-300",
  observation: "border-teal-400",
};

const mono = "mt-1 whitespace-pre-wrap break-words rounded bg-stone-100 px-2 py-1 font-mono text-xs dark:bg-stone-900";

function Body({ step }: { step: Step }) {
  const s = step as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === "string" ? (s[k] as string) : "");
  switch (step.type) {
    case "reasoning":
      return (
        <>
          {str("thought") && <p className="whitespace-pre-wrap break-words text-sm">{str("thought")}</p>}
          <pre className={mono}>{str("cmd")}</pre>
        </>
      );
    case "shell-output": {
      const cut = s.stdout_truncated ? ` · ${String(s.stdout_bytes)} bytes, first 4096 shown` : "";
      return (
        <>
          <div className="text-xs text-stone-500">
            exit {String(s.exit)} · {String(s.exec_s)} s{s.timed_out ? " · timed out" : ""}
            {cut}
          </div>
          {str("stdout") && <pre className={mono}>{str("stdout")}</pre>}
          {str("stderr") && <pre className={`${mono} text-red-700 dark:text-red-300`}>{str("stderr")}</pre>}
        </>
      );
    }
    case "message":
      return (
        <p className="whitespace-pre-wrap break-words text-sm">
          <span className="font-medium">{str("from")}</span>
          <span className="text-stone-500"> → {str("to")}: </span>
          {str("content")}
        </p>
      );
    default: {
      const text = stepText(step);
      return text ? <p className="whitespace-pre-wrap break-words text-sm">{text}</p> : null;
    }
  }
}

export function StepView({ step }: { step: Step }) {
  const border = TYPE_STYLE[step.type] ?? "border-stone-300";
  return (
    <li data-testid="step" data-step-type={step.type} data-step-id={step.step_id} className={`border-l-2 ${border} py-1 pl-3`}>
      <div className="flex items-baseline gap-2 text-xs text-stone-500">
        <span className="font-mono font-medium text-stone-700 dark:text-stone-300">{step.type}</span>
        {step.source && <span className="rounded bg-stone-200 px-1 dark:bg-stone-800">{step.source}</span>}
        <time dateTime={step.ts} title={step.ts}>
          {step.ts.slice(11, 19)}
        </time>
      </div>
      <Body step={step} />
    </li>
  );
}
