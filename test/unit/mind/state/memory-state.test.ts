// lib/mind/state/memory-state.ts: the in-memory MindState (unit tests, command-line
// runs) keeps what every home of a mind's state keeps (helpers/mind-state-contract.ts).
import { MemoryMindState } from "../../../../lib/mind/state/memory-state";
import { stampStep } from "../../../../lib/trajectory/schema";
import { mindStateContract } from "../../helpers/mind-state-contract";
import { inboundContract } from "../../helpers/mind-state-inbound";

mindStateContract("MemoryMindState", async (mindId) => new MemoryMindState(mindId, { name: "Reverie", model: "m" }));

// Its way in: a scenario's script (or a test) brings what comes from others.
inboundContract("MemoryMindState", async (mindId) => {
  const state = new MemoryMindState(mindId, { name: "Reverie", model: "m" });
  let n = 0;
  return Object.assign(state, {
    outside: {
      message: (from: string, content: string) => state.deliver(stampStep({ type: "message", source: "chat", from, to: "Reverie", content }, { id: crypto.randomUUID(), now: Date.parse("2025-02-01T00:00:00.000Z") + ++n })),
      change: async ({ id, text }: { id: string; text: string }) => void (await state.change({ id, kind: "curation", body: { what: "memory", op: "add", text, id, by: "Ada", role: "owner" } })),
      settle: async () => undefined,
    },
  });
});
