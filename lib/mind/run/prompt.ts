// What the mind is told: the standing instructions (persona + how to act) and
// the task text of each wake. The instructions and the first look are rendered
// from the shipped templates in lib/mind/self/defaults.
import type { SystemPart } from "../../context/replay";
import type { StepOf } from "../../trajectory/schema";
import { alarmTime } from "../../trajectory/summary";
import type { Alarm } from "../ports";
import { personaText, renderCut, renderSelf, type SelfCut, type SelfFile, type SelfText, type SelfTexts, type SelfValues } from "../self/self";
import { defaultSelfTexts, SELF_DEFAULTS } from "../self/defaults";

export interface PromptExtras {
  /** The command list, one `- summary` a line (generated from the sandbox's registry). */
  commands: string;
  /** Installed skills, offered by one line each; `skills show <name>` reads one. */
  skills: readonly { name: string; description: string }[];
}

/** The parts of the standing instructions are cut at these slots of instructions.md. */
const INSTRUCTION_CUTS = ["persona", "commands", "skills"] as const;
/** The parts of a first look are cut at these slots of first-look.md. */
const FIRST_LOOK_CUTS = ["persona", "command-names"] as const;

/** A shipped template cut at its parts' slots; one without them is a broken build, and says so at once. */
function cutOf<K extends string>(file: string, name: string, values: SelfValues & Readonly<Record<K, string>>, cuts: readonly K[]): SelfCut<K> {
  const cut = renderCut(file, values, cuts);
  if (!cut) throw new Error(`lib/mind/self/defaults/${name} does not hold ${cuts.map((c) => `{{${c}}}`).join(", ")} once each, in that order`);
  return cut;
}

const instructionsCut = (values: { name: string; persona: string; commands: string; skills: string }) => cutOf(SELF_DEFAULTS.instructions, "instructions.md", values, INSTRUCTION_CUTS);
const firstLookCut = (commandNames: string) => cutOf(SELF_DEFAULTS.firstLook, "first-look.md", { name: "", persona: "", "command-names": commandNames }, FIRST_LOOK_CUTS);

const BARE = instructionsCut({ name: "", persona: "", commands: "", skills: "" });
/** How to act: fixed text between the persona and the command list. */
const HOW_TO_ACT = BARE.at("persona").after;
/** People and idling: fixed text after the command list. */
const PEOPLE = BARE.at("commands").after;
/** The people part before roles existed: runs recorded then are still split into their parts. */
const PEOPLE_BEFORE_ROLES = `

People write to you as [message <id> from <name> to <you>]; your responder answers them (once per message), and you see its replies here. You may start a conversation with chat send.
When nothing needs doing, say so in a sentence and set FINAL=idle: you will be woken again later.`;

/** The standing instructions in their parts (persona, how to act, commands, people, skills) from a persona and the shipped texts; joined, they are the instructions. */
export function instructionParts(mind: { name: string; persona: string }, extras: PromptExtras): SystemPart[] {
  return selfInstructionParts(defaultSelfTexts(mind.persona), mind.name, extras);
}

/** Where a part came from: the mind's file and its recorded sha, when the home gave one. */
const fromFile = (file: SelfFile, t: SelfText): { file: string; sha?: string } => ({ file, ...(t.sha ? { sha: t.sha } : {}) });

const skillsText = (skills: PromptExtras["skills"]) =>
  skills.length ? `\n\nSkills you have installed (\`skills show <name>\` reads one):\n${skills.map((s) => `- ${s.name}: ${s.description}`).join("\n")}` : "";

/**
 * The standing instructions rendered from the mind's own texts (its
 * instructions.md with its persona.md), in their parts, each naming the file
 * it came from. Texts the mind rewrote so that they no longer hold
 * {{persona}}, {{commands}} and {{skills}} once each, in that order, are one
 * part: they are still rendered, only not cut.
 */
export function selfInstructionParts(self: SelfTexts, name: string, extras: PromptExtras): SystemPart[] {
  const file = self["instructions.md"];
  const persona = self["persona.md"];
  const values = { name, persona: personaText(persona.text), commands: extras.commands, skills: skillsText(extras.skills) };
  const cut = renderCut(file.text, values, INSTRUCTION_CUTS);
  if (!cut) return [{ kind: "instructions", text: renderSelf(file.text, values), ...fromFile("instructions.md", file) }];
  return [
    { kind: "persona", text: cut.head + cut.at("persona").value, ...fromFile("persona.md", persona) },
    { kind: "how-to-act", text: cut.at("persona").after, ...fromFile("instructions.md", file) },
    { kind: "commands", text: cut.at("commands").value },
    { kind: "people", text: cut.at("commands").after, ...fromFile("instructions.md", file) },
    { kind: "skills", text: cut.at("skills").value + cut.at("skills").after },
  ];
}

/** An idle wake's first look rendered from the mind's own first-look.md (and persona.md): one part when the mind's text no longer holds {{persona}} and {{command-names}} in that order. */
export function selfFirstLookParts(self: SelfTexts, name: string, commands: string): SystemPart[] {
  const file = self["first-look.md"];
  const persona = self["persona.md"];
  const values = { name, persona: personaText(persona.text), "command-names": commandNames(commands).join(", ") };
  const cut = renderCut(file.text, values, FIRST_LOOK_CUTS);
  if (!cut) return [{ kind: "first-look", text: renderSelf(file.text, values), ...fromFile("first-look.md", file) }];
  return [
    { kind: "persona", text: cut.head + cut.at("persona").value, ...fromFile("persona.md", persona) },
    { kind: "first-look", text: cut.at("persona").after, ...fromFile("first-look.md", file) },
    { kind: "commands", text: cut.at("command-names").value + cut.at("command-names").after },
  ];
}

/** A run's instructions: the text sent, its parts (joined, the text), and an idle wake's first look likewise. */
export interface Instructions {
  text: string;
  system: SystemPart[];
  firstLook?: { text: string; system: SystemPart[] };
}

const joined = (parts: readonly SystemPart[]) => parts.map((p) => p.text).join("");

/** What the inner life's runs are told, from the mind's own texts as recorded. */
export function selfInstructions(self: SelfTexts, name: string, extras: PromptExtras): Instructions {
  // An empty part (no skills installed) is not shown as one, as runs recorded it before.
  const system = selfInstructionParts(self, name, extras).filter((p) => p.text);
  const look = selfFirstLookParts(self, name, extras.commands).filter((p) => p.text);
  return { text: joined(system), system, firstLook: { text: joined(look), system: look } };
}

export function instructionsFor(mind: { name: string; persona: string }, extras: PromptExtras): string {
  return instructionParts(mind, extras)
    .map((p) => p.text)
    .join("");
}

/**
 * An idle wake's first look (first-look.md): the reply format, what to do
 * when nothing needs doing, and the commands by name. The look decides
 * whether anything needs doing; once the mind acts, its next call has the full
 * instructions (the whole command list, people, skills), so this says only
 * what that decision needs. The functions are glossed here, once, rather than
 * in every scheduled wake's task: a task is a step, and the newest steps are
 * shown again.
 */
const FIRST_LOOK = firstLookCut("").at("persona").after;

/** The command names of a command list (`- name …` a line), in its order. */
export function commandNames(commands: string): string[] {
  const names: string[] = [];
  for (const line of commands.split("\n")) {
    const name = /^- (\S+)/.exec(line)?.[1];
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The first look's instructions, made from the standing ones: the persona in
 * full, the first look's text, the command names. Undefined when the
 * instructions are not of the standard shape (a test's, a future format):
 * then there is nothing to make a first look from.
 */
export function firstLookParts(instructions: string): SystemPart[] | undefined {
  const parts = splitInstructions(instructions);
  const persona = parts.find((p) => p.kind === "persona");
  const commands = parts.find((p) => p.kind === "commands");
  if (!persona || !commands) return undefined;
  // The persona part is the instructions' own: first-look.md opens with the same text as instructions.md.
  const look = firstLookCut(commandNames(commands.text).join(", "));
  return [persona, { kind: "first-look", text: look.at("persona").after }, { kind: "commands", text: look.at("command-names").value + look.at("command-names").after }];
}

/**
 * Instructions as a run holds them (one string) back in their parts, for
 * "what the model saw". The fixed texts mark the cuts; instructions that are
 * not of this shape (a test's, a future format) are one part. Joined, the
 * parts are always the text given.
 */
export function splitInstructions(text: string): SystemPart[] {
  const how = text.indexOf(HOW_TO_ACT);
  const peopleText = text.includes(PEOPLE) ? PEOPLE : PEOPLE_BEFORE_ROLES;
  const people = how < 0 ? -1 : text.indexOf(peopleText, how + HOW_TO_ACT.length);
  const look = how < 0 ? text.indexOf(FIRST_LOOK) : -1;
  if (look >= 0) {
    const lookParts: SystemPart[] = [
      { kind: "persona", text: text.slice(0, look) },
      { kind: "first-look", text: FIRST_LOOK },
      { kind: "commands", text: text.slice(look + FIRST_LOOK.length) },
    ];
    return lookParts.filter((p) => p.text);
  }
  if (how < 0 || people < 0) return [{ kind: "instructions", text }];
  const parts: SystemPart[] = [
    { kind: "persona", text: text.slice(0, how) },
    { kind: "how-to-act", text: HOW_TO_ACT },
    { kind: "commands", text: text.slice(how + HOW_TO_ACT.length, people) },
    { kind: "people", text: peopleText },
    { kind: "skills", text: text.slice(people + peopleText.length) },
  ];
  return parts.filter((p) => p.text);
}

type Message = StepOf<"message">;

export type WakeTask =
  | { reason: "start"; awaySeconds?: number }
  | { reason: "scheduled"; level: number }
  | { reason: "retry"; failures: number }
  | { reason: "message"; messages: Message[] }
  /** Alarms the mind set went off (`now`: when they rang). */
  | { reason: "alarm"; alarms: readonly Alarm[]; now: number };

const FUNCTIONS = `Choose ONE function for this wake and end with FINAL="<function>: <one line>":
- think: one new thought that moves you forward (or reply with the thought and no code)
- act: real work in your shell
- learn: store a lesson (mem add)
- recall: bring back a memory (mem search) and use it
- goals: tend your goals (focus)
- idle: nothing needs doing; say so honestly (FINAL="idle")`;

export function taskText(task: WakeTask): string {
  switch (task.reason) {
    case "start":
      return `You are starting up. Look around (your workspace, your recent trajectory, your goals) and choose your first thought.\n\n${FUNCTIONS}`;
    case "scheduled":
      // Short: the first look's instructions gloss the functions, and this task is shown again with the newest steps of later wakes.
      return `A spontaneous wake (idle level ${task.level}); nothing new arrived. Choose ONE function (think, act, learn, recall, goals, idle) and end with FINAL="<function>: <one line>"; nothing to do: FINAL="idle".`;
    case "retry":
      return `Trying again after ${task.failures} failed attempt(s) to reach your model. Carry on where you were.\n\n${FUNCTIONS}`;
    case "message":
      // The messages themselves are in the context already (just above); name them, do not quote them again.
      return `New message${task.messages.length > 1 ? "s" : ""} (above): ${task.messages.map((m) => `${m.step_id.slice(0, 8)} from ${m.from}`).join(", ")}.\n\nYour responder answers people, once per message; you do not reply here. Let what they said feed your inner life (you may write to someone first with chat send when you have a reason).\n\n${FUNCTIONS}`;
    case "alarm":
      return `${task.alarms.length > 1 ? `${task.alarms.length} alarms you set went off` : "An alarm you set went off"} (it is now ${alarmTime(task.now)}):\n${task.alarms.map(alarmLines).join("\n")}\n\nDo what you set ${task.alarms.length > 1 ? "them" : "it"} for.\n\n${FUNCTIONS}`;
  }
}

/** An alarm in its wake's task: its id and time, then its note, quoted line by line. */
function alarmLines(a: Alarm): string {
  return `- alarm ${a.id.slice(0, 8)}, set for ${alarmTime(a.at)}:\n${a.note.split("\n").map((line) => `  > ${line}`).join("\n")}`;
}
