// The `self` command's verbs that keep a trial's files (fork, diff, trials,
// drop) and every refusal, through the real just-bash sandbox, whole outputs.
// Trying and merging need the mind: test/unit/mind/self/trial.test.ts runs them in
// a mind's home; here, a shell with no way to the mind says so.
import { InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import { Journal } from "@/lib/mind/log/journal";
import { MemoryMindState } from "@/lib/mind/state/memory-state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import type { Clock, ShellSession } from "@/lib/mind/ports";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { WORKSPACE } from "@/lib/shell/limits";
import { SELF_DIR, SELF_FILES } from "@/lib/shell/self/paths";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { ROOT_TRAJ } from "../../helpers/memory-log";
import { echoShellm, predictableIds, runScope } from "../../helpers/wired-sandbox";

const T0 = Date.UTC(2026, 11, 5, 7, 0, 0);
const ids = predictableIds();
let fs: InMemoryFs;
let session: ShellSession;

beforeEach(async () => {
  ids.reset();
  const clock: Clock = { now: () => T0, sleep: async () => undefined };
  const log = new TrajectoryLog(new MindWriter(new MemoryMindState(ROOT_TRAJ)), ROOT_TRAJ);
  const run = await new Journal(log, ids, clock).openRun({ model: "test", launched_by: "monolith" });
  fs = new InMemoryFs();
  await fs.mkdir(`${SELF_DIR}/watchers`, { recursive: true });
  for (const file of SELF_FILES) await fs.writeFile(`${SELF_DIR}/${file}`, `${file}: line one\nline two\n`);
  session = justBashSandbox({ fs, flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids, clock }).open(runScope(run, "Reverie", echoShellm()));
});

async function sh(code: string) {
  const r = await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal });
  return { stdout: r.stdout, stderr: r.stderr, exit: r.exit };
}

describe("self", () => {
  it("fork copies the texts with a record of what they were; diff shows what the trial changes; trials lists them; drop removes one", async () => {
    expect(await sh("self trials")).toEqual({ stdout: "no trials (self fork NAME makes one)\n", stderr: "", exit: 0 });
    expect((await sh("self fork brisk")).stdout).toBe(
      "trial brisk: your texts copied to /workspace/trials/brisk/ (persona.md, instructions.md, first-look.md, responder.md, summarizer.md).\nEdit them there; self diff brisk shows what they change, self try brisk tries them on your last wakes.\n",
    );
    expect(await sh("ls /workspace/trials/brisk; jq -c '{tries, at: .forked_at, n: (.forked | length)}' /workspace/trials/brisk/trial.json")).toEqual({
      stdout: "first-look.md\ninstructions.md\npersona.md\nresponder.md\nsummarizer.md\ntrial.json\n" + '{"tries":[],"at":"2026-12-05T07:00:00.000Z","n":5}\n',
      stderr: "",
      exit: 0,
    });
    expect(await sh("self diff brisk")).toEqual({ stdout: "trial brisk changes nothing yet (edit the files in /workspace/trials/brisk/)\n", stderr: "", exit: 0 });
    await sh("echo 'line three' >> /workspace/trials/brisk/persona.md");
    expect(await sh("self diff brisk")).toEqual({ stdout: "--- a/self/persona.md\n+++ b/self/persona.md\n@@ -1,2 +1,3 @@\n persona.md: line one\n line two\n+line three\n", stderr: "", exit: 0 });
    await sh("self fork other");
    expect(await sh("self trials")).toEqual({ stdout: "brisk                1 text changed, 0 tries\nother                0 texts changed, 0 tries\n", stderr: "", exit: 0 });
    // Editing a trial changes nothing the mind runs on.
    expect(await fs.readFile(`${SELF_DIR}/persona.md`)).toBe("persona.md: line one\nline two\n");
    expect(await sh("self drop brisk; self trials")).toEqual({ stdout: "trial brisk dropped\nother                0 texts changed, 0 tries\n", stderr: "", exit: 0 });
  });

  it("refuses what it cannot do, and says why", async () => {
    const usage = (await sh("self --help")).stdout;
    expect(usage.split("\n")[0]).toBe("usage: self fork NAME             copy your texts (self/) to a trial in /workspace/trials/NAME/ to edit there");
    expect(await sh("self")).toEqual({ stdout: "", stderr: `self: say what to do\n${usage}`, exit: 2 });
    expect((await sh("self grow x")).stderr.split("\n")[0]).toBe("self: unknown verb grow");
    expect((await sh("self fork")).stderr.split("\n")[0]).toBe("self: fork needs the trial's NAME");
    expect(await sh("self fork 'Big Name'")).toEqual({ stdout: "", stderr: "self: a trial's name is lowercase letters, digits, - and _ (at most 40): Big Name\n", exit: 1 });
    expect(await sh("self diff none")).toEqual({ stdout: "", stderr: "self: /workspace/trials/none/persona.md is missing: a trial has all five texts (copy it back from /workspace/self/persona.md)\n", exit: 1 });
    expect(await sh("self drop none")).toEqual({ stdout: "", stderr: "self: there is no trial none\n", exit: 1 });
    await sh("self fork calm");
    expect(await sh("self fork calm")).toEqual({ stdout: "", stderr: "self: trial calm exists already (self diff calm; self drop calm to start again)\n", exit: 1 });
    expect((await sh("self try calm --last 0")).stderr.split("\n")[0]).toBe("self: --last takes a whole number from 1 to 20");
    // This shell has no way to the mind (a scope without trials): a try and a merge say so.
    expect(await sh("self try calm")).toEqual({ stdout: "", stderr: "self: a try cannot be run from here (only from your own runs)\n", exit: 1 });
    expect(await sh("self merge calm")).toEqual({ stdout: "", stderr: "self: a merge cannot be made from here (only from your own runs)\n", exit: 1 });
    await sh("echo '{' > /workspace/trials/calm/trial.json");
    expect(await sh("self trials")).toEqual({ stdout: "calm                 0 texts changed, damaged\n", stderr: "", exit: 0 });
  });
});
