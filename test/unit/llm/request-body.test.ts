// The request body made of kept message JSON (lib/llm/request-body.ts) is the
// very text JSON.stringify writes for the same request, call after call, as
// messages come, go, repeat and change role.
import { describe, expect, it } from "vitest";
import { MessageJson, requestBody, type BodyMessage } from "../../../lib/llm/request-body";

const plain = (model: string, messages: BodyMessage[], options: Record<string, unknown>) => JSON.stringify({ model, messages, ...options });
const options = { stream: true, stream_options: { include_usage: true } };

describe("a request body from kept message JSON", () => {
  it("is JSON.stringify's text, call after call", () => {
    const cache = new MessageJson();
    const system: BodyMessage = { role: "system", content: 'You are "a test".\n\tTabs, \\ backslashes, \u0001 controls, é, 🙂 and \u2028.' };
    const history: BodyMessage[] = [{ role: "user", content: "[the trajectory so far]" }];
    for (let i = 0; i < 30; i++) {
      history.push({ role: "assistant", content: `thought ${i}\n\n\`\`\`bash\necho "${i}"\n\`\`\`` });
      history.push({ role: "user", content: `[output exit=0]\n${i}` });
      // The same text under both roles, and a message that is a join of two (a new string every call).
      const call = [system, ...history.slice(-12), { role: i % 2 ? "assistant" : "user", content: "[continue]" }, { role: "user", content: `${history.at(-1)?.content}\n\n[continue]` }];
      const seeded = i % 3 === 0 ? { ...options, seed: i } : options;
      expect(requestBody("m\"odel", call, seeded, cache)).toBe(plain("m\"odel", call, seeded));
    }
  });

  it("writes an empty list and no options as JSON.stringify does", () => {
    expect(requestBody("m", [], {}, new MessageJson())).toBe(JSON.stringify({ model: "m", messages: [] }));
    expect(requestBody("m", [], options, new MessageJson())).toBe(plain("m", [], options));
  });
});
