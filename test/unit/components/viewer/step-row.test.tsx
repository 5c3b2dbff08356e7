// The viewer's row of one line (components/viewer/StepRow, StepBody), on its
// server-rendered HTML: a line kept as invalid is said to be so, with why, and
// shown as it was read, under the same test ids as any step; a valid step's
// fields are shown as its kind's schema types them.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StepRow } from "@/components/viewer/StepRow";
import type { BodyActions } from "@/components/viewer/StepBody";
import { InvalidLine, type StepLine } from "@/lib/trajectory/headlong";
import { entryOf } from "@/lib/trajectory/rows";
import { isKind, type Step } from "@/lib/trajectory/schema";
import { stepLine, stepText } from "@/lib/trajectory/summary";
import { selfEditStep } from "@/lib/shell/self/edit";
import { id, stepMaker } from "../../helpers/steps";

const actions: BodyActions = { loadBlob: async () => undefined, openTrajectory: () => undefined, inspect: () => undefined };
const none = () => undefined;

const html = (line: StepLine, withBody = true) =>
  renderToStaticMarkup(<StepRow entry={entryOf(7, line)} step={withBody ? line : undefined} inRun={false} selected={false} matched={false} actions={actions} onSelect={none} onToggleRun={none} />);
/** The rendered text with its tags removed and entities decoded. */
const textOf = (out: string) =>
  out
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&gt;/g, ">")
    .replace(/&lt;/g, "<")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");

const RUN = id(50);
const raw = `{"type":"message","step_id":"${id(9)}","ts":"2025-01-01T00:00:09.000Z","content":"hi <b>","to":"ada","run_id":"${RUN}"}`;
const invalid = new InvalidLine({ type: "message", step_id: id(9), ts: "2025-01-01T00:00:09.000Z", run_id: RUN, raw, error: "message: from: Invalid input: expected string, received undefined" });

describe("StepRow: an invalid line", () => {
  it("renders its raw JSON under a clear marker, with the step's test ids and no way into what a model saw", () => {
    const out = html(invalid);
    expect(out).toMatch(/^<div data-testid="step" data-step-type="message" data-step-id="00000009-0000-4000-8000-aaaaaaaaaaaa" data-invalid="true"/);
    expect(out).toContain('data-testid="invalid-mark"');
    expect(out).toContain('data-testid="invalid-line"');
    expect(out).not.toContain("inspect-context");
    expect(textOf(out)).toBe(`messageinvalid00:00:09invalid message line: message: from: Invalid input: expected string, received undefined${raw}`);
  });

  it("before its body is loaded: the marker, and its JSON (cut to 160 characters) as the preview", () => {
    const out = html(invalid, false);
    expect(out).toContain('data-testid="invalid-mark"');
    expect(out).not.toContain('data-testid="invalid-line"');
    expect(raw.length).toBeGreaterThan(160);
    expect(textOf(out)).toBe(`messageinvalid00:00:09${raw.slice(0, 159)}…`);
  });
});

describe("StepRow: valid steps, read through their kind", () => {
  const make = stepMaker();

  it("a message: from → to and its text, no invalid marker", () => {
    const out = html(make("message", { content: "hello", from: "ada", to: "mind" }));
    expect(out).not.toContain("invalid");
    expect(textOf(out)).toBe("message00:00:01ada → mind: hello");
  });

  it("a shell output: exit, time and output", () => {
    const out = html(make("shell-output", { stdout: "a  b", stderr: "", exit: 2, exec_s: 0.5, timed_out: true }));
    expect(textOf(out)).toBe("shell-output00:00:02exit 2 · 0.5 s · timed outa  b");
  });

  it("a reasoning step: its thought and command, and the way into what the model saw", () => {
    const out = html(make("reasoning", { thought: "look", cmd: "ls", run_id: RUN }));
    expect(out).toContain('data-testid="inspect-context"');
    expect(textOf(out)).toBe("reasoning00:00:03looklswhat the model saw");
  });
});

describe("StepRow: a self-edit", () => {
  const make = stepMaker();
  const MIND_RUN = "1a2b3c4d-0000-4000-8000-aaaaaaaaaaaa";

  it("its line, the file, who, both hashes and the diff, each line coloured by what it does", async () => {
    const step = make("self-edit", { ...(await selfEditStep("self/instructions.md", "Be kind.\nBe brief.\n", "Be kind.\nBe very brief.\n", { kind: "mind", run: MIND_RUN, traj: id(1) })) });
    if (!isKind(step, "self-edit")) throw new Error("not a self-edit");
    const out = html(step);
    expect(out).toContain('data-testid="self-edit" data-path="self/instructions.md"');
    expect(textOf(out)).toBe(
      `self-editshell${step.ts.slice(11, 19)}I changed self/instructions.md (+1 −1).self/instructions.md · by the mind (run 1a2b3c4d) · ${step.before?.slice(0, 8)}→${step.after?.slice(0, 8)}` +
        "--- a/self/instructions.md\n+++ b/self/instructions.md\n@@ -1,2 +1,2 @@\n Be kind.\n-Be brief.\n+Be very brief.\n",
    );
    // The diff's own text, whole; the line taken out red, the line put in green, the headers muted, context plain.
    const pre = out.slice(out.indexOf('data-testid="self-edit-diff"'));
    expect(textOf(pre.slice(pre.indexOf(">") + 1))).toBe(step.diff);
    expect([...pre.matchAll(/<span( class="([^"]*)")?>([^<]*)<\/span>/g)].map((m) => [m[3], m[2] ?? ""])).toEqual([
      ["--- a/self/instructions.md\n", "text-stone-600 dark:text-stone-400"],
      ["+++ b/self/instructions.md\n", "text-stone-600 dark:text-stone-400"],
      ["@@ -1,2 +1,2 @@\n", "text-stone-600 dark:text-stone-400"],
      [" Be kind.\n", ""],
      ["-Be brief.\n", "text-red-700 dark:text-red-300"],
      ["+Be very brief.\n", "text-emerald-700 dark:text-emerald-400"],
    ]);
  });

  it("a new file's before is 'new', a removed one's after 'removed'; its human, a revert and the harness are named", async () => {
    const created = make("self-edit", { ...(await selfEditStep("self/persona.md", null, "I am calm.\n", { kind: "harness", why: "first-start" })) });
    const removed = make("self-edit", { ...(await selfEditStep("self/persona.md", "I am calm.\n", null, { kind: "human", name: "ada", via: "settings" })) });
    const reverted = make("self-edit", { ...(await selfEditStep("self/persona.md", null, "I am calm.\n", { kind: "revert", of: removed.step_id, name: "ada" })) });
    const found = make("self-edit", { ...(await selfEditStep("self/persona.md", "I am calm.\n", "I am calm. <b>Always.</b>\n", { kind: "harness", why: "unrecorded" })) });
    const meta = (s: StepLine) => textOf(/data-testid="self-edit-meta">(.*?)<\/div>/.exec(html(s))?.[1] ?? "");
    const sha8 = (s: Step) => (isKind(s, "self-edit") ? (s.after ?? "").slice(0, 8) : "");
    expect([created, removed, reverted, found].map(meta)).toEqual([
      `self/persona.md · by the harness, at the first start · new→${sha8(created)}`,
      `self/persona.md · by ada in Settings · ${sha8(created)}→removed`,
      `self/persona.md · by ada, reverting ${removed.step_id.slice(0, 8)} · new→${sha8(reverted)}`,
      `self/persona.md · by the harness, finding an unrecorded change · ${sha8(created)}→${sha8(found)}`,
    ]);
    // What the mind wrote is text, never markup.
    expect(html(found)).toContain("+I am calm. &lt;b&gt;Always.&lt;/b&gt;");
    expect(html(found)).not.toContain("<b>");
  });

  it("before its body is loaded, and in `traj tail`: its line, not its diff", async () => {
    const step = make("self-edit", { ...(await selfEditStep("self/instructions.md", "a\n", "b\n", { kind: "human", name: "ada", via: "files" })) });
    expect(stepText(step)).toBe("ada changed your self/instructions.md (+1 −1) in Files.");
    expect(textOf(html(step, false))).toBe(`self-editsystem${step.ts.slice(11, 19)}ada changed your self/instructions.md (+1 −1) in Files.`);
    expect(stepLine(step)).toBe(`${step.step_id.slice(0, 8)} ${step.ts.slice(11, 19)} self-edit [system] ada changed your self/instructions.md (+1 −1) in Files.`);
  });
});
