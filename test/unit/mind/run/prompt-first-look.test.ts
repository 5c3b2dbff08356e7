// lib/mind/run/prompt.ts, an idle wake's first look: made from the standing
// instructions (the persona in full, the reply format, every command by
// name), split back into its parts for "what the model saw", and the short
// task of a scheduled wake.
import { describe, expect, it } from "vitest";
import { commandNames, firstLookParts, instructionsFor, splitInstructions, taskText } from "@/lib/mind/run/prompt";
import { commandList, COMMANDS } from "@/lib/shell/commands/registry";
import { TokenCounter } from "@/lib/context/tokens";

const PERSONA = "I keep a garden log.\nI write a haiku most days, and I build small tools for the people who talk to me.";
const FULL = instructionsFor({ name: "Wren", persona: PERSONA }, { commands: commandList(), skills: [{ name: "tidy", description: "How I tidy my notes." }] });

describe("the first look's instructions", () => {
  const parts = firstLookParts(FULL);
  const text = (parts ?? []).map((p) => p.text).join("");

  it("keep the persona in full, say how to reply and how to idle, and name every command of the sandbox, each with --help", () => {
    expect(parts?.map((p) => p.kind)).toEqual(["persona", "first-look", "commands"]);
    expect(parts?.[0]?.text).toBe(splitInstructions(FULL)[0]?.text);
    expect(text).toContain(PERSONA);
    expect(text).toContain("You are Wren, a persistent mind.");
    expect(text).toContain("FINAL=idle");
    expect(text).toContain("ONE ```bash block");
    expect(text).toContain("each takes --help");
    for (const c of COMMANDS) expect(parts?.[2]?.text.split(/[ ,.]+/)).toContain(c.name);
    expect(commandNames(commandList())).toEqual(COMMANDS.map((c) => c.name));
  });

  it("are a fraction of the standing instructions", () => {
    const counter = new TokenCounter();
    expect(counter.count(text)).toBeLessThan(counter.count(FULL) / 2);
  });

  it("split back into their parts, joined they are the text (the inspector shows each)", () => {
    expect(splitInstructions(text)).toEqual(parts);
    // The standing instructions still split as before.
    expect(splitInstructions(FULL).map((p) => p.kind)).toEqual(["persona", "how-to-act", "commands", "people", "skills"]);
  });

  it("cannot be made from instructions of another shape", () => {
    expect(firstLookParts("You are a test mind.")).toBeUndefined();
    expect(splitInstructions("You are a test mind.")).toEqual([{ kind: "instructions", text: "You are a test mind." }]);
  });
});

describe("a scheduled wake's task", () => {
  it("is one short paragraph naming the six functions and FINAL=idle", () => {
    const task = taskText({ reason: "scheduled", level: 3 });
    expect(task).toContain("idle level 3");
    for (const fn of ["think", "act", "learn", "recall", "goals", "idle"]) expect(task).toContain(fn);
    expect(task).toContain('FINAL="idle"');
    expect(new TokenCounter().count(task)).toBeLessThan(60);
  });

  it("other wakes keep the function list in full", () => {
    expect(taskText({ reason: "start" })).toContain("- recall: bring back a memory (mem search) and use it");
    expect(taskText({ reason: "retry", failures: 2 })).toContain("- goals: tend your goals (focus)");
  });
});
