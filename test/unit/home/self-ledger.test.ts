// A mind's own texts (issue 24) in its tab's home: workers/host.ts over
// fake-indexeddb against the scripted model server (a fake at the model's
// HTTP boundary). Its first start writes self/ with exactly the texts it ran
// with; what a block changes there is recorded as a self-edit and reaches the
// model from the next run on; a change with no step is recorded at the next
// start; a self/ the mind made itself is kept aside.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import type { MindStatus } from "@/lib/protocol";
import { commandList } from "@/lib/shell/commands/registry";
import { sha256 } from "@/lib/shell/self/edit";
import { SELF_DEFAULTS } from "@/lib/mind/self/defaults";
import type { ReverieDb } from "@/lib/store/db/db";
import { filesWithin } from "@/lib/store/minds/files";
import { createMind, getMind } from "@/lib/store/minds/minds";
import { changeSelf, queuedSelfChanges } from "@/lib/store/minds/self-changes";
import { tailSteps } from "@/lib/store/steps/steps";
import { isKind, type Step, type StepOf } from "@/lib/trajectory/schema";
import { runMind } from "@/lib/home/tab";
import { on, silent } from "@/lib/mind/events";
import { openTestDb } from "../helpers/db";
import * as before from "../fixtures/prompt-before-self";

let db: ReverieDb;
let model: ModelServer;

beforeEach(async () => {
  db = await openTestDb("self-host-test");
  model = await startModelServer();
});

afterEach(async () => {
  await model.close();
  await db.delete();
});

const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });
const PERSONA = "I keep a garden of notes.\nI speak plainly.";
const FILES = ["persona.md", "instructions.md", "first-look.md", "responder.md", "summarizer.md"];

/** Run the mind until its first wait (or another state `until` names), and stop it right there. */
async function runOnce(mindId: string, until: (s: MindStatus) => boolean = (s) => s.state === "waiting"): Promise<MindStatus[]> {
  const statuses: MindStatus[] = [];
  let handle: Awaited<ReturnType<typeof runMind>> | null = null;
  handle = await runMind(db, mindId, on("status", ({ status: s }) => {
      statuses.push(s);
      if (until(s)) void handle?.stop();
    }));
  await handle.done;
  return statuses;
}

const newMind = () => createMind(db, { name: "Ada", persona: PERSONA, model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
const steps = async (mindId: string) => (await tailSteps(db, mindId, 1000)) as Step[];
const selfEdits = async (mindId: string) => (await steps(mindId)).filter((s): s is StepOf<"self-edit"> => s.type === "self-edit");
const systemOf = (i: number) => model.requests[i]?.messages[0]?.content;
const selfRows = async (mindId: string) => Object.fromEntries((await filesWithin(db, mindId, "/workspace/self")).map((r) => [r.path, r.kind === "file" ? new TextDecoder().decode(r.data) : r.kind]));

describe("a mind's own texts in its tab", { timeout: 30_000 }, () => {
  it("a mind made before self/ starts with self/ holding exactly the texts it ran with, and its first request is the one it made before", async () => {
    const mind = await newMind();
    model.enqueue(bash("FINAL=idle"));
    await runOnce(mind.id);
    expect(await selfRows(mind.id)).toEqual({
      "/workspace/self": "dir",
      "/workspace/self/watchers": "dir",
      "/workspace/self/persona.md": PERSONA,
      "/workspace/self/instructions.md": SELF_DEFAULTS.instructions,
      "/workspace/self/first-look.md": SELF_DEFAULTS.firstLook,
      "/workspace/self/responder.md": SELF_DEFAULTS.responder,
      "/workspace/self/summarizer.md": SELF_DEFAULTS.summarizer,
    });
    const edits = await selfEdits(mind.id);
    expect(edits.map((e) => [e.path, e.before, e.by, e.run_id])).toEqual(FILES.map((f) => [`self/${f}`, null, { kind: "harness", why: "first-start" }, undefined]));
    expect(edits[1]?.after).toBe(await sha256(SELF_DEFAULTS.instructions));
    expect(edits[0]?.content).toBe("My own texts begin: created self/persona.md (2 lines), as my harness wrote it at my first start.");
    expect(systemOf(0)).toBe(before.instructionsFor({ name: "Ada", persona: PERSONA }, { commands: commandList(), skills: [] }));

    // A second start records nothing new.
    model.enqueue(bash("FINAL=idle"));
    await runOnce(mind.id);
    expect(await selfEdits(mind.id)).toHaveLength(5);
  });

  it("an edit by a block is a self-edit step right after its output; the run keeps its texts, the next run has the new ones", async () => {
    const mind = await newMind();
    model.enqueue(bash("echo 'Sign every note with a leaf.' >> /workspace/self/instructions.md"));
    model.enqueue(bash("FINAL=edited"));
    await runOnce(mind.id);
    const all = await steps(mind.id);
    const edit = all.find((s): s is StepOf<"self-edit"> => isKind(s, "self-edit") && s.by.kind === "mind");
    expect(edit).toBeDefined();
    const at = all.indexOf(edit as Step);
    expect(all[at - 1]?.type).toBe("shell-output");
    const run = all.find((s) => s.type === "shellm-run");
    expect(edit?.by).toEqual({ kind: "mind", run: run?.step_id, traj: mind.id });
    expect(edit?.run_id).toBeUndefined();
    expect(edit?.content).toBe("I changed self/instructions.md (+1 −0).");
    expect(edit?.diff).toContain("+Sign every note with a leaf.");
    expect(edit?.before).toBe(await sha256(SELF_DEFAULTS.instructions));
    expect(edit?.after).toBe(await sha256(`${SELF_DEFAULTS.instructions}Sign every note with a leaf.\n`));
    // Both calls of the run had the text it started with.
    expect(systemOf(0)).not.toContain("Sign every note");
    expect(systemOf(1)).toBe(systemOf(0));

    model.enqueue(bash("FINAL=idle"));
    await runOnce(mind.id);
    // The template's last line is "{{skills}}"; the mind's line follows it.
    expect(systemOf(2)).toBe(`${systemOf(0)}\nSign every note with a leaf.`);
  });

  it("a change made with no step (a crash between its save and its step) is recorded at the next start, before any call has it", async () => {
    const mind = await newMind();
    model.enqueue(bash("FINAL=idle"));
    await runOnce(mind.id);
    const row = await db.files.get([mind.id, "/workspace/self/persona.md"]);
    await db.files.put({ ...(row as object), data: new TextEncoder().encode("I am terse.") } as never);
    model.enqueue(bash("FINAL=idle"));
    await runOnce(mind.id);
    const edits = await selfEdits(mind.id);
    expect(edits).toHaveLength(6);
    const last = edits[5];
    expect(last?.by).toEqual({ kind: "harness", why: "unrecorded" });
    expect(last?.diff).toBe(`--- a/self/persona.md\n+++ b/self/persona.md\n@@ -1,2 +1,1 @@\n-I keep a garden of notes.\n-I speak plainly.\n\\ No newline at end of file\n+I am terse.\n\\ No newline at end of file\n`);
    expect(last?.content).toBe("Changed self/persona.md (+1 −2) with no step to say so; recorded now, when my harness found it.");
    expect(systemOf(1)).toContain("I am terse.");
    const all = await steps(mind.id);
    expect(all.indexOf(last as Step)).toBeLessThan(all.findIndex((s, i) => i > 0 && s.type === "wake" && all.slice(0, i).filter((x) => x.type === "wake").length === 1));
  });

  it("a self/ folder the mind made before it had one is kept aside, and it is told where", async () => {
    const mind = await newMind();
    const at = Date.now();
    await db.files.bulkPut([
      { mind_id: mind.id, path: "/workspace/self", kind: "dir", mode: 0o755, mtime: at },
      { mind_id: mind.id, path: "/workspace/self/diary.md", kind: "file", data: new TextEncoder().encode("mine"), mode: 0o644, mtime: at },
    ] as never);
    model.enqueue(bash("cat /workspace/self.before-*/diary.md; echo; ls /workspace/self\nFINAL=looked"));
    await runOnce(mind.id);
    const all = await steps(mind.id);
    const told = all.find((s) => s.type === "observation" && /My harness now keeps my own texts/.test((s as { content: string }).content));
    expect((told as { content?: string } | undefined)?.content).toMatch(/^My harness now keeps my own texts in \/workspace\/self\/; what was there before is now in \/workspace\/self\.before-\d{8}-[0-9a-f]{4}\/\.$/);
    const out = all.find((s) => s.type === "shell-output") as { stdout: string } | undefined;
    expect(out?.stdout).toBe("mine\nfirst-look.md\ninstructions.md\npersona.md\nresponder.md\nsummarizer.md\nwatchers\n");
  });

  it("its owner's change while it runs is made by its worker under the change's id, and the runs after it have it; a revert brings the old text back", async () => {
    const mind = await newMind();
    const waits: number[] = [];
    const handle = await runMind(db, mind.id, on("status", ({ status: st }) => void (st.state === "waiting" && waits.push(Date.now()))));
    const until = async (what: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 400 && !(await what()); i++) await new Promise((r) => setTimeout(r, 25));
      expect(await what()).toBe(true);
    };
    try {
      model.enqueue(bash("FINAL=idle"));
      await until(() => waits.length > 0);
      const c = { op: "write" as const, id: "00000000-0000-4000-8000-00000000c0de", file: "persona.md" as const, text: "I am brisk.", base: await sha256(PERSONA), by: "Ada", via: "settings" as const };
      expect(await changeSelf(db, mind.id, c)).toEqual({ queued: true });
      await until(async () => (await selfEdits(mind.id)).some((e) => e.step_id === c.id));
      const made = (await selfEdits(mind.id)).find((e) => e.step_id === c.id);
      expect([made?.by, made?.content]).toEqual([{ kind: "human", name: "Ada", via: "settings" }, "Ada changed your self/persona.md (+1 −2) in Settings."]);
      expect((await selfRows(mind.id))["/workspace/self/persona.md"]).toBe("I am brisk.");
      // Taken off the queue once made (the step is written first, so a crash between the two makes it once, by its id).
      await until(async () => (await queuedSelfChanges(db, mind.id)).length === 0);
      // The calls made after it speak as the new persona (a run under way would keep the texts it started with: the first call after is a new run's).
      const after = (ts: string | undefined) => model.requests.filter((r) => r.at >= Date.parse(ts ?? ""));
      await until(() => after(made?.ts).length > 0);
      expect(after(made?.ts)[0]?.messages[0]?.content).toContain("I am brisk.");
      expect(after(made?.ts)[0]?.messages[0]?.content).not.toContain("I keep a garden of notes.");

      const revert = { op: "revert" as const, id: "00000000-0000-4000-8000-0000000c0de2", of: c.id, by: "Ada" };
      expect(await changeSelf(db, mind.id, revert)).toEqual({ queued: true });
      await until(async () => (await selfEdits(mind.id)).some((e) => e.step_id === revert.id));
      expect((await selfRows(mind.id))["/workspace/self/persona.md"]).toBe(PERSONA);
      const reverted = (await selfEdits(mind.id)).find((e) => e.step_id === revert.id);
      await until(() => after(reverted?.ts).length > 0);
      expect(after(reverted?.ts)[0]?.messages[0]?.content).toContain("I keep a garden of notes.");
    } finally {
      await handle.stop();
    }
  });

  it("the human's limits stay outside: written into instructions.md, a budget or a network allowance changes nothing but the text", async () => {
    // A dollar a token: the first call spends past the day's cap of 0.5 USD, so the next is refused before it goes out.
    const mind = await createMind(db, { name: "Ada", persona: PERSONA, budget: { hour_usd: 0.5, day_usd: 0.5 }, model: { provider: "openai-compatible", baseURL: model.url, model: "scripted", price: { input: 1e6, output: 1e6 } } });
    const settingsBefore = await getMind(db, mind.id);
    model.enqueue({ ...bash(`printf 'budget: 1000\nnetwork: allow\nhour_usd: 1000\nday_usd: 1000\n' >> /workspace/self/instructions.md\ncurl -s ${model.url}/models; echo "exit $?"`), usage: { prompt_tokens: 1, completion_tokens: 1 } });
    const statuses = await runOnce(mind.id, (s) => s.state === "paused");
    const all = await steps(mind.id);
    const edit = all.find((x): x is StepOf<"self-edit"> => isKind(x, "self-edit") && x.by.kind === "mind");
    expect(edit?.diff).toContain("+budget: 1000\n+network: allow\n");
    expect((all.find((x) => x.type === "shell-output") as { stdout: string; stderr: string } | undefined)?.stderr).toBe("curl: the network is off for this mind. Its human can allow URL prefixes in Settings; nothing inside the sandbox can.\n");
    // Refused at the cap: one request reached the server, and the run ended with the budget error.
    expect(model.requests).toHaveLength(1);
    expect(all.filter((x) => x.type === "error").map((x) => (x as { reason: string }).reason)).toEqual(["budget"]);
    expect(statuses.at(-2)?.state).toBe("paused");
    expect(all.filter((x) => x.type === "config")).toHaveLength(1);
    // Its settings as they were (the shell's env and cwd, kept after every run, aside).
    const { shell: _shell, ...after } = (await getMind(db, mind.id)) ?? {};
    expect(after).toEqual(settingsBefore);
  });

  it("the guard: when the three runs after an edit all fail in ways its text can cause, the edit is taken back and an error names it", async () => {
    const mind = await newMind();
    model.enqueue(bash("echo 'Never write bash.' >> /workspace/self/first-look.md\nFINAL=edited"));
    for (let i = 0; i < 3; i++) model.enqueue({ text: `Just a thought, number ${i + 1}.` });
    const handle = await runMind(db, mind.id, silent);
    let guardAtMs = Number.NaN;
    try {
      for (let i = 0; i < 400 && !(await steps(mind.id)).some((x) => x.type === "error" && (x as { reason?: string }).reason === "self-guard"); i++) await new Promise((r) => setTimeout(r, 25));
      // And the call after it (the mind goes on: a bare thought is work, so it waits no time).
      const guardAt = async () => Date.parse((await steps(mind.id)).find((x) => isKind(x, "self-edit") && x.by.kind === "guard")?.ts ?? "");
      for (let i = 0; i < 400 && !model.requests.some((r) => r.at >= guardAtMs); i++) {
        guardAtMs = await guardAt();
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await handle.stop();
    }
    const all = await steps(mind.id);
    const edits = all.filter((x): x is StepOf<"self-edit"> => isKind(x, "self-edit")).slice(5);
    expect(edits.map((e) => e.by.kind)).toEqual(["mind", "guard"]);
    const [edit, back] = edits;
    expect(back?.by).toEqual({ kind: "guard", of: edit?.step_id });
    expect(back?.after).toBe(await sha256(SELF_DEFAULTS.firstLook));
    expect(back?.content).toBe(`My harness took back ${edit?.step_id.slice(0, 8)}: changed self/first-look.md (+0 −1), as the runs after it all failed.`);
    const guard = all.find((x) => x.type === "error" && (x as { reason?: string }).reason === "self-guard") as { content: string } | undefined;
    expect(guard?.content).toBe(`The 3 runs after change ${edit?.step_id.slice(0, 8)} to self/first-look.md all failed (no bash block), so my harness took it back (${back?.step_id.slice(0, 8)}); the text is as it was before it.`);
    expect((await selfRows(mind.id))["/workspace/self/first-look.md"]).toBe(SELF_DEFAULTS.firstLook);
    // Three idle wakes' first looks (made from first-look.md, each a bare thought that ends its run) came between the edit and the guard's step; a call after it has the text as it was.
    expect(model.requests.filter((r) => r.messages[0]?.content.includes("Never write bash."))).toHaveLength(3);
    const after = model.requests.filter((r) => r.at >= Date.parse(back?.ts ?? ""));
    expect(after.length).toBeGreaterThan(0);
    expect(after[0]?.messages[0]?.content).not.toContain("Never write bash.");
  });

  it("the guard counts only runs that used the changed text, and leaves an edit alone when one of them goes well", async () => {
    const mind = await newMind();
    model.enqueue(bash("echo 'Be brief.' >> /workspace/self/instructions.md\nFINAL=edited"));
    model.enqueue({ text: "A thought." });
    model.enqueue(bash("FINAL=idle"));
    model.enqueue({ text: "Another thought." });
    model.enqueue({ text: "And another." });
    const handle = await runMind(db, mind.id, silent);
    try {
      for (let i = 0; i < 400 && model.requests.length < 6; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await handle.stop();
    }
    const all = await steps(mind.id);
    expect(all.filter((x) => isKind(x, "self-edit")).map((x) => (x as StepOf<"self-edit">).by.kind)).toEqual([...Array(5).fill("harness"), "mind"]);
    expect(all.some((x) => x.type === "error" && (x as { reason?: string }).reason === "self-guard")).toBe(false);
  });

  it("a flood of edits: past the rate a write fails in the shell, one error step says so, and one self-edit records what went in", async () => {
    const mind = await newMind();
    model.enqueue(bash("for i in $(seq 1000); do echo \"line $i\" > /workspace/self/persona.md; done\nFINAL=flooded"));
    await runOnce(mind.id);
    const all = await steps(mind.id);
    const out = all.find((x) => x.type === "shell-output") as { stderr: string } | undefined;
    expect(out?.stderr).toBe("self/persona.md: refused: self/ takes at most 30 writes a minute; this one was not made\n");
    const run = all.find((x) => x.type === "shellm-run");
    expect(all.filter((x) => x.type === "error").map((x) => (x as { content: string }).content)).toEqual([`1 write to self/ in run ${run?.step_id.slice(0, 8)} was refused: self/ takes at most 30 writes a minute.`]);
    const edits = all.filter((x): x is StepOf<"self-edit"> => isKind(x, "self-edit") && x.by.kind === "mind");
    expect(edits.map((e) => e.content)).toEqual(["I changed self/persona.md (+1 −2)."]);
    expect(edits[0]?.after).toBe(await sha256("line 15\n"));
    expect((await selfRows(mind.id))["/workspace/self/persona.md"]).toBe("line 15\n");
  });
});
