// A watcher the mind adds itself (issue 24, part 4), in its tab's home:
// workers/host.ts over fake-indexeddb against the scripted model server (a
// fake at the model's HTTP boundary). Its block adds a watcher on thought;
// the block's end records it; the mind's next thought starts it, its output
// is an observation in the stream (source watcher:NAME), and the model reads
// it at its next call.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { isKind, type Step } from "@/lib/trajectory/schema";
import { runMind } from "@/lib/home/tab";
import { on, silent } from "@/lib/mind/events";
import { openTestDb } from "../helpers/db";

let db: ReverieDb;
let model: ModelServer;

beforeEach(async () => {
  db = await openTestDb("watchers-host-test");
  model = await startModelServer();
});

afterEach(async () => {
  await model.close();
  await db.delete();
});

const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });
const steps = async (mindId: string) => (await tailSteps(db, mindId, 1000)) as Step[];

describe("a watcher the mind adds", { timeout: 30_000 }, () => {
  it("prints for each thought: its observation is in the stream after the thought, and the model's next call reads it", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "I keep a garden.", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    model.enqueue(bash(`watch add hello --on thought --run 'echo "heard: $(jq -r .content)"'`), bash('FINAL="think: The tea is ready."'));
    const handle = await runMind(db, mind.id, silent);
    const heard = async () => (await steps(mind.id)).find((s) => s.type === "observation" && s.source === "watcher:hello");
    try {
      for (let i = 0; i < 400 && !(await heard()); i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await handle.stop();
    }
    const all = await steps(mind.id);
    const edit = all.filter((s) => isKind(s, "self-edit")).find((s) => s.path === "self/watchers/hello.sh");
    const thought = all.find((s) => s.type === "thought");
    const observation = all.find((s) => s.type === "observation" && s.source === "watcher:hello");
    expect([edit?.by.kind, (thought as { content?: string } | undefined)?.content, observation?.trigger_step, (observation as { content?: string } | undefined)?.content]).toEqual([
      "mind",
      "The tea is ready.",
      thought?.step_id,
      "heard: The tea is ready.",
    ]);
    expect(all.indexOf(edit as Step)).toBeLessThan(all.indexOf(thought as Step));
    expect(all.indexOf(thought as Step)).toBeLessThan(all.indexOf(observation as Step));

    // Its next start: the first call reads the watcher's output, tagged with its name.
    const calls = model.requests.length;
    model.enqueue(bash("FINAL=idle"));
    const again = await runMind(db, mind.id, on("status", ({ status: s }) => void (s.state === "waiting" && again.stop())));
    await again.done;
    // (Steps in a row for the same role are one message: its lines are read.)
    const lines = (model.requests[calls]?.messages ?? []).flatMap((m) => m.content.split("\n"));
    expect(lines.filter((l) => l.includes("heard: The tea is ready."))).toEqual(["[watcher hello] heard: The tea is ready."]);
  });
});
