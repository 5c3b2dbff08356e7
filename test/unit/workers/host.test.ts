// workers/host.ts wires a mind to the store, the sandbox and the model: run it
// under Node over fake-indexeddb against the scripted model server (a fake at
// the model's HTTP boundary), and check what survives a restart.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import type { MindStatus } from "@/lib/protocol";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { runMind } from "@/lib/home/tab";
import { on, silent } from "@/lib/mind/events";
import { openTestDb } from "../helpers/db";

let db: ReverieDb;
let model: ModelServer;

beforeEach(async () => {
  db = await openTestDb("host-test");
  model = await startModelServer();
});

afterEach(async () => {
  await model.close();
  await db.delete();
});

const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });

/** Run the mind until its first wait, and stop it right there (level 0 waits no time). */
async function runOnce(mindId: string): Promise<MindStatus[]> {
  const statuses: MindStatus[] = [];
  let handle: Awaited<ReturnType<typeof runMind>> | null = null;
  handle = await runMind(db, mindId, on("status", ({ status: s }) => {
      statuses.push(s);
      if (s.state === "waiting") void handle?.stop();
    }));
  await handle.done;
  return statuses;
}

describe("runMind", () => {
  it("runs a wake end to end, and the shell's cwd, variables and files survive a restart", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    model.enqueue(bash("mkdir -p /workspace/notes && cd /workspace/notes && export MOOD=curious && echo kept > note.txt\nFINAL=setup"));
    const first = await runOnce(mind.id);
    expect(first.map((s) => s.state)).toEqual(["thinking", "thinking", "waiting", "stopped"]);
    expect((await getMind(db, mind.id))?.shell).toEqual({ env: expect.objectContaining({ MOOD: "curious" }), cwd: "/workspace/notes" });

    model.enqueue(bash('echo "$MOOD $(pwd) $(cat note.txt)"\nFINAL=checked'));
    await runOnce(mind.id);
    const outputs = (await tailSteps(db, mind.id, 100)).filter((s) => s.type === "shell-output").map((s) => (s as { stdout: string }).stdout);
    expect(outputs).toEqual(["", "curious /workspace/notes kept\n"]);
    // The model was called with the persona as instructions and the mind's own model name.
    expect(model.requests.map((r) => r.model)).toEqual(["scripted", "scripted"]);
    expect(model.requests[1]?.messages[0]).toEqual({ role: "system", content: expect.stringContaining("You are Ada") });
  });

  it("the agent's own stores (memory, goals, skills) survive a worker restart", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    const skill = "---\nname: tidy\ndescription: How I tidy my notes.\n---\nSort them by date.";
    model.enqueue(bash(`mem add "tides follow the moon" --tags sea\nfocus set learn the tides\nprintf '%s\\n' '${skill.replace(/\n/g, "' '")}' > /tmp/tidy.md\nskills install /tmp/tidy.md\nFINAL=setup`));
    await runOnce(mind.id);
    model.enqueue(bash("mem search tides | cut -d' ' -f4-; focus list | cut -d' ' -f2-; skills list\nFINAL=checked"));
    await runOnce(mind.id);
    const outputs = (await tailSteps(db, mind.id, 100)).filter((s) => s.type === "shell-output").map((s) => (s as { stdout: string }).stdout);
    expect(outputs[1]).toBe("tides follow the moon\n[ ] learn the tides\ntidy  How I tidy my notes.\n");
    // The installed skill is offered to the model in its instructions on the next wake.
    expect(model.requests.at(-1)?.messages[0]?.content).toContain("- tidy: How I tidy my notes.");
  });

  it("refuses a mind that is not in the database", async () => {
    await expect(runMind(db, "00000000-0000-4000-8000-000000000000", silent)).rejects.toThrow(/no mind/i);
  });
});
