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
import { id, stepMaker } from "./helpers/steps";

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
