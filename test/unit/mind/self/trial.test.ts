// self fork / diff / try / merge / drop (issue 24, part 5) in a mind in its
// tab's home (workers/host.ts over fake-indexeddb, the scripted model server a
// fake at the model's HTTP boundary): a trial is forked, edited and diffed,
// tried on the mind's last wakes in a child trajectory over a scratch copy of
// the workspace (the trial's texts go to the model; nothing touches the real
// files), compared with what really happened, and merged as self-edits citing
// the try.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../../fixtures/model-server";
import type { ReverieDb } from "@/lib/store/db/db";
import { filesWithin } from "@/lib/store/minds/files";
import { createMind } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { isKind, type Step, type StepOf } from "@/lib/trajectory/schema";
import { runMind } from "@/lib/home/tab";
import { silent } from "@/lib/mind/events";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;
let model: ModelServer;

beforeEach(async () => {
  db = await openTestDb("self-trial-test");
  model = await startModelServer();
});

afterEach(async () => {
  await model.close();
  await db.delete();
});

const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });
/** Run the mind until the scripted server has had `calls` requests, stop it, and read its steps. */
async function runUntilCalls(mindId: string, calls: number): Promise<Step[]> {
  const handle = await runMind(db, mindId, silent);
  try {
    for (let i = 0; i < 600 && model.requests.length < calls; i++) await new Promise((r) => setTimeout(r, 25));
  } finally {
    await handle.stop();
  }
  return (await tailSteps(db, mindId, 2000)) as Step[];
}
const outputs = (all: Step[]) => all.filter((s) => s.type === "shell-output").map((s) => s as { stdout: string; stderr: string; exit: number });

describe("self fork, diff, try, merge", { timeout: 30_000 }, () => {
  it("a trial is tried on the last wakes with its texts, in a child trajectory over a scratch workspace, compared, and merged citing the try", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "I tend notes.", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    model.enqueue(bash('echo one\nFINAL="think: one"'));
    model.enqueue(bash("self fork calm && sed -i 's/a persistent mind/a calm persistent mind/' /workspace/trials/calm/instructions.md /workspace/trials/calm/first-look.md && self diff calm && self trials\nFINAL=\"act: forked\""));
    model.enqueue(bash("self try calm --last 2"));
    // The try's two re-run wakes.
    model.enqueue(bash('echo tried > /workspace/tried.txt\nFINAL="think: calm"'));
    model.enqueue({ text: "Only a thought." });
    model.enqueue(bash('self merge calm\nFINAL="act: merged"'));
    model.enqueue(bash("FINAL=idle"));
    const all = await runUntilCalls(mind.id, 7);
    const [, forked, tried, merged] = outputs(all);
    expect(forked?.stdout).toBe(
      [
        "trial calm: your texts copied to /workspace/trials/calm/ (persona.md, instructions.md, first-look.md, responder.md, summarizer.md).",
        "Edit them there; self diff calm shows what they change, self try calm tries them on your last wakes.",
        "--- a/self/instructions.md",
        "+++ b/self/instructions.md",
        "@@ -1,4 +1,4 @@",
        "-You are {{name}}, a persistent mind. You keep thinking in a loop, even when nobody talks to you.",
        "+You are {{name}}, a calm persistent mind. You keep thinking in a loop, even when nobody talks to you.",
        " ",
        " {{persona}}",
        " ",
        "--- a/self/first-look.md",
        "+++ b/self/first-look.md",
        "@@ -1,4 +1,4 @@",
        "-You are {{name}}, a persistent mind. You keep thinking in a loop, even when nobody talks to you.",
        "+You are {{name}}, a calm persistent mind. You keep thinking in a loop, even when nobody talks to you.",
        " ",
        " {{persona}}",
        " ",
        "calm                 2 texts changed, 0 tries",
        "",
      ].join("\n"),
    );
    // Said before any call of the try went out.
    const said = all.find((s) => s.type === "observation" && s.source === "self-try") as { content: string } | undefined;
    expect(said?.content).toBe("Trying trial calm on my last 2 wakes: up to 24 model calls with openai-compatible/scripted, counted against my budget like my own.");
    const fork = all.find((s): s is StepOf<"fork"> => isKind(s, "fork"));
    const child = fork?.child ?? "";
    const report = (tried?.stdout ?? "").split("\n");
    expect(report[0]).toBe(`self try calm: 2 wakes re-run with the trial's texts in trajectory ${child.slice(0, 8)} (a scratch copy of the workspace; the calls counted against your budget)`);
    expect(report.slice(1, 7).map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
      expect.stringMatching(/^wake [0-9a-f]{8} \(start; its first call's recorded context\)$/),
      expect.stringMatching(/^real echo one FINAL=think: one 0 err \d+ tok \$0\.0000$/),
      expect.stringMatching(/^trial echo tried > \/workspace\/tried\.txt FINAL=think: calm 0 err \d+ tok \$0\.0000$/),
      expect.stringMatching(/^wake [0-9a-f]{8} \(scheduled; its first call's recorded context\)$/),
      expect.stringMatching(/^real self fork calm && sed -i 's\/a persistent FINAL=act: forked 0 err \d+ tok \$0\.0000$/),
      expect.stringMatching(/^trial a thought, no block no FINAL 0 err \d+ tok \$0\.0000$/),
    ]);
    expect(report.slice(7, 9).map((l) => l.replace(/\s+/g, " ").trim().replace(/\d+ tokens/, "N tokens"))).toEqual(["total real 2/2 set FINAL, 0 errors, N tokens, $0.0000", "trial 1/2 set FINAL, 0 errors, N tokens, $0.0000"]);
    // The trial's runs were sent the trial's texts; the mind's own calls were not.
    const calm = model.requests.map((r) => r.messages[0]?.content.includes("a calm persistent mind") ?? false);
    expect(calm.slice(0, 6)).toEqual([false, false, false, true, true, false]);
    // Each re-run's first call was sent exactly the messages the wake's own first call was sent (its record, rebuilt), with the trial's instructions.
    expect(model.requests[3]?.messages.slice(1)).toEqual(model.requests[0]?.messages.slice(1));
    expect(model.requests[4]?.messages.slice(1)).toEqual(model.requests[1]?.messages.slice(1));
    expect(model.requests[4]?.messages[0]?.content).toBe(model.requests[1]?.messages[0]?.content.replace("a persistent mind", "a calm persistent mind"));
    // Nothing the try did touched the real workspace.
    expect((await filesWithin(db, mind.id, "/workspace")).map((r) => r.path)).not.toContain("/workspace/tried.txt");
    // The merge: one self-edit citing the try's child trajectory; the next run is the calm mind.
    const edits = all.filter((s): s is StepOf<"self-edit"> => isKind(s, "self-edit") && s.by.kind === "merge");
    expect(edits.map((e) => [e.path, e.by])).toEqual(["self/instructions.md", "self/first-look.md"].map((p) => [p, { kind: "merge", trial: "calm", try: child }]));
    expect(merged?.stdout).toBe(edits.map((e) => `${e.step_id.slice(0, 8)} I changed ${e.path} (+1 −1), merging trial calm (tried in ${child.slice(0, 8)}).\n`).join(""));
    // Its texts are the trial's from then on (the next wake, an idle one, looks first with first-look.md, which the trial left alone).
    const row = (await filesWithin(db, mind.id, "/workspace/self")).find((r) => r.path === "/workspace/self/instructions.md");
    expect(new TextDecoder().decode(row?.data).split("\n")[0]).toBe("You are {{name}}, a calm persistent mind. You keep thinking in a loop, even when nobody talks to you.");

  });

  it("a merge needs a try to cite, and is refused, changing nothing, when a text changed since the fork", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "I tend notes.", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    model.enqueue(bash("self fork x && echo 'I am brisk.' >> /workspace/trials/x/persona.md\nself merge x\necho 'I am slow.' >> /workspace/self/persona.md\nFINAL=\"act: forked\""));
    model.enqueue(bash("self try x --last 1 > /dev/null && self merge x\nFINAL=\"act: tried\""));
    model.enqueue({ text: "A trial thought." });
    model.enqueue(bash("FINAL=idle"));
    const all = await runUntilCalls(mind.id, 4);
    const [forked, tried] = outputs(all);
    expect(forked?.stderr).toBe("self: trial x has not been tried: self try x first (a merge cites its try)\n");
    expect(tried?.stderr).toBe("self merge: self/persona.md changed since trial x was forked; fork again (or copy the change into the trial) and try it again.\n");
    expect(all.filter((s): s is StepOf<"self-edit"> => isKind(s, "self-edit")).map((e) => e.by.kind)).toEqual([...Array(5).fill("harness"), "mind"]);
  });
});
