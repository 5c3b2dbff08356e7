"use client";
// The token table of one call: each part of the instructions and of the
// context, the framing, and the total they add up to. A summary links to the
// steps it cites; every stretch links to its first and last step.
import type { TokenLine } from "@/lib/context/replay";

const link = "font-mono text-indigo-600 underline hover:text-indigo-800 dark:text-indigo-400";

function StepLink({ id, onShowStep, testId = "context-step-link" }: { id: string; onShowStep: (id: string) => void; testId?: string }) {
  return (
    <button type="button" className={link} data-testid={testId} data-step-id={id} title={`Show step ${id} in the stream`} onClick={() => onShowStep(id)}>
      {id.slice(0, 8)}
    </button>
  );
}

/** The steps a line stands for: its ends, and a summary's cites. */
function Covers({ line, onShowStep }: { line: TokenLine; onShowStep: (id: string) => void }) {
  const p = line.part;
  if (!p) return null;
  const ends = p.kind === "tier" || p.kind === "elided" ? [p.first, p.last] : p.kind === "conversation" ? [p.conversation[0] ?? p.inner[0] ?? p.message, p.message] : [p.step_ids[0], p.step_ids[p.step_ids.length - 1]];
  const [first, last] = ends;
  return (
    <span className="flex flex-wrap items-baseline gap-1">
      {first && <StepLink id={first} onShowStep={onShowStep} />}
      {last && last !== first && (
        <>
          <span aria-hidden>…</span>
          <StepLink id={last} onShowStep={onShowStep} />
        </>
      )}
      {p.kind === "tier" && p.cites.length > 0 && (
        <span className="ml-2 flex flex-wrap items-baseline gap-1" data-testid="context-cites">
          <span className="text-stone-500 dark:text-stone-400">cites</span>
          {p.cites.map((id) => (
            <StepLink key={id} id={id} onShowStep={onShowStep} testId="context-cite" />
          ))}
        </span>
      )}
    </span>
  );
}

const FIRST_LOOK = "first look (an idle wake's lean instructions; its next call has the full ones)";

/** A line's name: an instructions' part from the mind's own file shows that file and its version (8 hex of its sha256). */
function PartName({ line }: { line: TokenLine }) {
  const from =
    line.file !== undefined && line.sha !== undefined ? (
      <span className="font-mono" data-testid="context-part-file">
        {line.file} · {line.sha.slice(0, 8)}
      </span>
    ) : null;
  if (line.kind === "first-look" || line.file === "first-look.md") return from ? <>{FIRST_LOOK} · {from}</> : <>{FIRST_LOOK}</>;
  return from ?? <>{line.label}</>;
}

export function ContextParts({ lines, total, budget, onShowStep }: { lines: readonly TokenLine[]; total: number; budget: number; onShowStep: (id: string) => void }) {
  return (
    <table data-testid="context-parts" className="w-full border-collapse text-left text-xs">
      <thead>
        <tr className="border-b border-stone-200 text-stone-500 dark:text-stone-400 dark:border-stone-800">
          <th className="py-1 pr-3 font-normal">part</th>
          <th className="py-1 pr-3 text-right font-normal">tokens</th>
          <th className="py-1 font-normal">steps</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line, i) => (
          <tr key={i} data-testid="context-part" data-kind={line.kind} data-tokens={line.tokens} data-file={line.file} data-sha={line.sha} className="border-b border-stone-100 align-baseline dark:border-stone-900">
            <td className="py-1 pr-3">
              <PartName line={line} />
            </td>
            <td className="py-1 pr-3 text-right font-mono" data-testid="context-part-tokens">
              {line.tokens.toLocaleString("en")}
            </td>
            <td className="py-1">
              <Covers line={line} onShowStep={onShowStep} />
            </td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr className="font-medium">
          <td className="py-1 pr-3">{budget > 0 ? `total (the context's budget: ${budget.toLocaleString("en")})` : "total"}</td>
          <td className="py-1 pr-3 text-right font-mono" data-testid="context-total" data-tokens={total}>
            {total.toLocaleString("en")}
          </td>
          <td />
        </tr>
      </tfoot>
    </table>
  );
}
