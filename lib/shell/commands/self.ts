// self fork|diff|try|merge|drop|trials: the mind tries changes to its own
// texts before making them its own. A trial is a copy of self/'s five texts in
// /workspace/trials/NAME/ (outside self/, so editing it changes nothing the
// mind runs on), with trial.json saying what each text was when it was
// forked and which tries were run. `try` re-runs past wakes with the trial's
// texts (lib/mind/self/trial.ts); `merge` makes them the mind's own, as
// self-edits citing the last try.
import * as z from "zod";
import { SELF_FILES, type SelfFile, type SelfTexts } from "../../mind/self/self";
import type { ActivityPort } from "../ports";
import type { TrialPort } from "../../mind/ports";
import { TRY_WAKES, TRY_WAKES_MAX } from "../../mind/self/trial";
import { WORKSPACE } from "../limits";
import { selfDiff, sha256 } from "../self/edit";
import { SELF_DIR } from "../self/paths";
import { defineAgentCommand, fail, ok, usageError, type AgentCommand, type CommandIO } from "./command";

const USAGE = `usage: self fork NAME             copy your texts (self/) to a trial in /workspace/trials/NAME/ to edit there
       self diff NAME             what the trial changes, as unified diffs
       self try NAME [--last N]   re-run your last N wakes (default ${TRY_WAKES}, at most ${TRY_WAKES_MAX}) with the trial's texts,
                                  in a child trajectory over a scratch copy of the workspace, and compare
                                  (the calls count against your budget)
       self merge NAME            make the trial's texts yours (self-edits citing its last try)
       self drop NAME             remove the trial
       self trials                list your trials
Your texts are ${SELF_FILES.map((f) => `self/${f}`).join(", ")}; each change to them is a self-edit step.`;

export const TRIALS_DIR = `${WORKSPACE}/trials`;
const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const TrialRecord = z.object({
  /** Each text's sha when the trial was forked (a merge is refused when one changed since). */
  forked: z.record(z.string(), z.string()),
  forked_at: z.string(),
  tries: z.array(z.object({ child: z.string(), at: z.string(), wakes: z.number() })),
});
type TrialRecord = z.infer<typeof TrialRecord>;

type Ports = { trials?: TrialPort; activity: ActivityPort; clock: { now(): number } };

const dirOf = (name: string) => `${TRIALS_DIR}/${name}`;

async function readRecord(io: CommandIO, name: string): Promise<TrialRecord | string> {
  const path = `${dirOf(name)}/trial.json`;
  if (!(await io.fs.exists(path))) return `self: there is no trial ${name} (self trials lists them; self fork ${name} makes it)`;
  try {
    return TrialRecord.parse(JSON.parse(await io.fs.readFile(path)));
  } catch {
    return `self: ${path} is damaged; self drop ${name} and fork it again`;
  }
}

async function trialTexts(io: CommandIO, name: string): Promise<Map<SelfFile, string> | string> {
  const out = new Map<SelfFile, string>();
  for (const f of SELF_FILES) {
    const path = `${dirOf(name)}/${f}`;
    if (!(await io.fs.exists(path))) return `self: ${path} is missing: a trial has all five texts (copy it back from ${SELF_DIR}/${f})`;
    out.set(f, await io.fs.readFile(path));
  }
  return out;
}

export const self: AgentCommand<Ports> = defineAgentCommand({
  name: "self",
  summary: "self fork|diff|try|merge|drop|trials NAME   try changes to your own texts (self/) before making them yours",
  usage: USAGE,
  async run(args, io, ports) {
    const [verb, name, ...rest] = args;
    if (verb === "--help" || verb === undefined) return verb ? ok(`${USAGE}\n`) : usageError(self, "say what to do");
    if (verb === "trials") return list(io);
    if (!["fork", "diff", "try", "merge", "drop"].includes(verb)) return usageError(self, `unknown verb ${verb}`);
    if (!name) return usageError(self, `${verb} needs the trial's NAME`);
    if (!NAME.test(name)) return fail(`self: a trial's name is lowercase letters, digits, - and _ (at most 40): ${name}`);
    switch (verb) {
      case "fork":
        return fork(io, name, ports.clock.now());
      case "diff":
        return diff(io, name);
      case "try":
        return tryIt(io, name, rest, ports);
      case "merge":
        return merge(io, name, ports);
      default:
        return drop(io, name);
    }
  },
});

async function fork(io: CommandIO, name: string, now: number) {
  const dir = dirOf(name);
  if (await io.fs.exists(dir)) return fail(`self: trial ${name} exists already (self diff ${name}; self drop ${name} to start again)`);
  await io.fs.mkdir(dir, { recursive: true });
  const forked: Record<string, string> = {};
  for (const f of SELF_FILES) {
    const text = await io.fs.readFile(`${SELF_DIR}/${f}`);
    await io.fs.writeFile(`${dir}/${f}`, text);
    forked[f] = await sha256(text);
  }
  const record: TrialRecord = { forked, forked_at: new Date(now).toISOString(), tries: [] };
  await io.fs.writeFile(`${dir}/trial.json`, `${JSON.stringify(record, null, 2)}\n`);
  return ok(`trial ${name}: your texts copied to ${dir}/ (${SELF_FILES.join(", ")}).\nEdit them there; self diff ${name} shows what they change, self try ${name} tries them on your last wakes.\n`);
}

async function diff(io: CommandIO, name: string) {
  const texts = await trialTexts(io, name);
  if (typeof texts === "string") return fail(texts);
  const parts: string[] = [];
  for (const [f, text] of texts) {
    const now = await io.fs.readFile(`${SELF_DIR}/${f}`);
    if (now !== text) parts.push(selfDiff(`self/${f}`, now, text));
  }
  return ok(parts.length ? parts.join("") : `trial ${name} changes nothing yet (edit the files in ${dirOf(name)}/)\n`);
}

async function tryIt(io: CommandIO, name: string, rest: string[], ports: Ports) {
  let last = TRY_WAKES;
  if (rest.length) {
    const n = rest[0] === "--last" ? Number(rest[1]) : Number.NaN;
    if (rest.length !== 2 || !Number.isInteger(n) || n < 1 || n > TRY_WAKES_MAX) return usageError(self, `--last takes a whole number from 1 to ${TRY_WAKES_MAX}`);
    last = n;
  }
  if (!ports.trials) return fail("self: a try cannot be run from here (only from your own runs)");
  const record = await readRecord(io, name);
  if (typeof record === "string") return fail(record);
  const texts = await trialTexts(io, name);
  if (typeof texts === "string") return fail(texts);
  const given = Object.fromEntries([...texts].map(([f, text]) => [f, { text }])) as unknown as SelfTexts;
  const r = await ports.trials.try(name, given, { last, signal: io.signal, beacon: () => ports.activity.beacon() });
  if (!r.ok) return fail(r.error);
  record.tries.push({ child: r.child, at: new Date(ports.clock.now()).toISOString(), wakes: last });
  await io.fs.writeFile(`${dirOf(name)}/trial.json`, `${JSON.stringify(record, null, 2)}\n`);
  return ok(`${r.report}\n`);
}

async function merge(io: CommandIO, name: string, ports: Ports) {
  if (!ports.trials) return fail("self: a merge cannot be made from here (only from your own runs)");
  const record = await readRecord(io, name);
  if (typeof record === "string") return fail(record);
  const lastTry = record.tries.at(-1);
  if (!lastTry) return fail(`self: trial ${name} has not been tried: self try ${name} first (a merge cites its try)`);
  const texts = await trialTexts(io, name);
  if (typeof texts === "string") return fail(texts);
  const given = new Map([...texts].map(([f, text]) => [f, { text, base: record.forked[f] ?? "" }] as const));
  const r = await ports.trials.merge(name, lastTry.child, given);
  if (!r.ok) return fail(r.error);
  return ok(`${r.lines.join("\n")}\n`);
}

async function drop(io: CommandIO, name: string) {
  const dir = dirOf(name);
  if (!(await io.fs.exists(dir))) return fail(`self: there is no trial ${name}`);
  await io.fs.rm(dir, { recursive: true, force: true });
  return ok(`trial ${name} dropped\n`);
}

async function list(io: CommandIO) {
  const names = (await io.fs.exists(TRIALS_DIR)) ? (await io.fs.readdir(TRIALS_DIR)).filter((n) => NAME.test(n)).sort() : [];
  if (!names.length) return ok("no trials (self fork NAME makes one)\n");
  const lines: string[] = [];
  for (const n of names) {
    const record = await readRecord(io, n);
    const texts = await trialTexts(io, n);
    let changed = 0;
    if (typeof texts !== "string") for (const [f, t] of texts) if ((await io.fs.readFile(`${SELF_DIR}/${f}`)) !== t) changed++;
    const tries = typeof record === "string" ? "damaged" : `${record.tries.length} ${record.tries.length === 1 ? "try" : "tries"}`;
    lines.push(`${n.padEnd(20)} ${typeof texts === "string" ? "incomplete" : `${changed} text${changed === 1 ? "" : "s"} changed`}, ${tries}`);
  }
  return ok(`${lines.join("\n")}\n`);
}
