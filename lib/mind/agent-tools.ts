// The agent commands' access to the trajectory: read it, append messages to
// it. Nothing here can edit or delete a step.
import type { Journal } from "./journal";
import type { AgentTools } from "./ports";

/** How far back `latestMessageFrom` looks. */
const RECENT = 500;

export function agentTools(journal: Journal, selfName: string): AgentTools {
  return {
    selfName,
    sendMessage: ({ to, content, replyTo }) =>
      journal.append(journal.inRun({ type: "message", from: selfName, to, content, reply_to: replyTo, source: "chat" })),
    findSteps: (idOrPrefix) => journal.log.find(idOrPrefix.toLowerCase(), 2),
    async latestMessageFrom(name) {
      const tail = await journal.log.tail(RECENT);
      return [...tail].reverse().find((s) => s.type === "message" && (s as { from?: string }).from === name);
    },
    tail: (n) => journal.log.tail(n),
  };
}
