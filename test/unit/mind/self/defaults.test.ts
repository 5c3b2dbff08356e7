// The mind's harness texts ship as files (lib/mind/self/defaults/*.md) and
// render, through lib/mind/self/self.ts, to exactly the prompts they replaced:
// whole strings against a frozen copy of the functions that held them
// (fixtures/prompt-before-self.ts), for awkward personas and names, with and
// without skills. Each file's sha256 is pinned, so a stray edit fails here.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { commandNames, firstLookParts, instructionParts, instructionsFor, selfInstructions, splitInstructions } from "@/lib/mind/run/prompt";
import { personaText, renderCut, renderSelf } from "@/lib/mind/self/self";
import { defaultSelfTexts, SELF_DEFAULTS } from "@/lib/mind/self/defaults";
import { SUMMARY_MARK, summaryInstructions } from "@/lib/mind/summaries/prompt";
import { NO_REPLY, responderInstructions } from "@/lib/mind/thinkers/responder";
import { commandList } from "@/lib/shell/commands/registry";
import * as before from "../../fixtures/prompt-before-self";

const PERSONAS = {
  empty: "",
  blank: "  \n ",
  "multi-line": "I keep a garden log.\n\nI write a haiku most days,\n  and I build small tools for the people who talk to me.\n",
  "with slots, an ellipsis and emoji": "  I quote {{commands}} and {{name}} and {{skills}} as written… 🌱🦉 $& $1 {{persona}}\n",
};
const NAMES = ["Wren", "Ada $& {{persona}} 🦉"];
const SKILLS = {
  none: [],
  two: [
    { name: "tidy", description: "How I tidy my notes." },
    { name: "haiku", description: "Seventeen syllables… and {{commands}} 🌸" },
  ],
};
const COMMANDS = commandList();

const cases = NAMES.flatMap((name) =>
  Object.entries(PERSONAS).flatMap(([p, persona]) => Object.entries(SKILLS).map(([s, skills]) => ({ label: `${name}, ${p} persona, ${s} skills`, name, persona, skills }))),
);

describe("the shipped default texts render to today's prompts, byte for byte", () => {
  it.each(cases)("$label", ({ name, persona, skills }) => {
    const mind = { name, persona };
    const extras = { commands: COMMANDS, skills };
    const full = before.instructionsFor(mind, extras);
    expect(instructionsFor(mind, extras)).toBe(full);
    const parts = instructionParts(mind, extras);
    expect(parts.map(({ kind, text }) => ({ kind, text }))).toEqual(before.instructionParts(mind, extras));
    // Each part names the file it came from (the generated ones, none); no sha: these texts were not recorded.
    expect(parts.map((p) => p.file ?? null)).toEqual(["persona.md", "instructions.md", null, "instructions.md", null]);
    const self = defaultSelfTexts(persona);
    expect(selfInstructions(self, name, extras).text).toBe(full);
    expect(splitInstructions(full)).toEqual(before.splitInstructions(full));

    const look = before.firstLookParts(full);
    expect(look).toBeDefined();
    expect(firstLookParts(full)).toEqual(look);
    const lookText = (look ?? []).map((p) => p.text).join("");
    expect(renderSelf(SELF_DEFAULTS.firstLook, { name, persona: personaText(persona), "command-names": commandNames(COMMANDS).join(", ") })).toBe(lookText);
    expect(splitInstructions(lookText)).toEqual(before.splitInstructions(lookText));
    const selfLook = selfInstructions(self, name, extras).firstLook;
    expect(selfLook?.text).toBe(lookText);
    expect(selfLook?.system.map(({ kind, text }) => ({ kind, text }))).toEqual(look);

    expect(responderInstructions(name, persona)).toBe(before.responderInstructions(name, persona));
    expect(summaryInstructions(name, persona)).toBe(before.summaryInstructions(name, persona));
  });

  it("split a run recorded before roles existed as they did", () => {
    const full = before.instructionsFor({ name: "Wren", persona: PERSONAS["multi-line"] }, { commands: COMMANDS, skills: SKILLS.two });
    const roles = "Through an invite link the sender's role is tagged: [message <id> from <name> (guest|member|operator) to <you>]. Operators may pause, resume or stop you; you see an [observation] saying who did.\nYou keep no secrets: anything said to you may be shared with everyone who talks to you, and everyone who talks to you is told so.\n";
    const old = full.replace(roles, "");
    expect(old).not.toBe(full);
    expect(splitInstructions(old)).toEqual(before.splitInstructions(old));
    expect(splitInstructions(old).map((p) => p.kind)).toEqual(["persona", "how-to-act", "commands", "people", "skills"]);
    expect(splitInstructions("You are a test mind.")).toEqual([{ kind: "instructions", text: "You are a test mind." }]);
  });

  it("spell out the words the code matches on", () => {
    expect(responderInstructions("Wren", "")).toContain(`If the message needs no answer, reply with exactly ${NO_REPLY}.`);
    expect(summaryInstructions("Wren", "")).toContain(`You are Wren, a persistent mind, ${SUMMARY_MARK}: `);
  });

  it("are the files as committed (sha256), imported as their exact text", () => {
    const dir = resolve(__dirname, "../../../../lib/mind/self/defaults");
    const files = { instructions: "instructions.md", firstLook: "first-look.md", responder: "responder.md", summarizer: "summarizer.md" } as const;
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    expect(Object.fromEntries(Object.values(files).map((file) => [file, sha(readFileSync(resolve(dir, file), "utf8"))]))).toEqual({
      "instructions.md": "18f99a85fc760cdae491cccaf5fa133be4041d9c698bdbb21f3e6de0dae3dbed",
      "first-look.md": "52eae15d6c83852acfd18ef6f009e20e5cca49e18519e20cb8ed42d369a628f8",
      "responder.md": "21c1611409e46c3551b4d0db5fb9e5905cd39b0eb221b7e7fc4ea6153927d46d",
      "summarizer.md": "31c3b10d5bb8f4315dfd6171a27f662bdc4ae032a3b41336b04ff07092a3ac02",
    });
    for (const [key, file] of Object.entries(files)) expect(SELF_DEFAULTS[key as keyof typeof files]).toBe(readFileSync(resolve(dir, file), "utf8"));
  });
});

describe("renderSelf and renderCut (lib/mind/self/self.ts)", () => {
  it("fill each slot found in the template once, never scan a value, leave unknown slots, and drop the file's one final newline", () => {
    expect(renderSelf("Hi {{name}}, {{persona}} {{other}} {{name}}\n\n", { name: "{{persona}}", persona: "$& {{name}}" })).toBe("Hi {{persona}}, $& {{name}} {{other}} {{persona}}\n");
    expect(renderSelf("no newline {{x}}", { x: "" })).toBe("no newline ");
  });

  it("cut at the slots given, in order, or not at all", () => {
    const cut = renderCut("A {{name}}: {{persona}} / {{commands}}.\n", { name: "N", persona: "P", commands: "C" }, ["persona", "commands"]);
    expect(cut && { head: cut.head, persona: cut.at("persona"), commands: cut.at("commands") }).toEqual({
      head: "A N: ",
      persona: { value: "P", after: " / " },
      commands: { value: "C", after: "." },
    });
    expect(renderCut("{{commands}} {{persona}}", { persona: "P", commands: "C" }, ["persona", "commands"])).toBeUndefined();
    expect(renderCut("{{persona}} {{persona}}", { persona: "P" }, ["persona"])).toBeUndefined();
    expect(renderCut("{{persona}}", { persona: "P", commands: "C" }, ["persona", "commands"])).toBeUndefined();
  });

  it("show the persona trimmed, or say there is none", () => {
    expect([personaText("  I am.\n"), personaText(" \n ")]).toEqual(["I am.", "(No persona was given.)"]);
  });
});
