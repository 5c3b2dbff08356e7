// The key split across events of the other channels (lib/server/proxy/split-key.ts):
// a tool call's arguments and reasoning, read through SseTally as the proxy
// reads a stream. The whole relayed text is compared: a rewritten event keeps
// its keys in the order they came, and held text goes out before [DONE].
import { describe, expect, it } from "vitest";
import { SseTally } from "@/lib/server/proxy/sse";

const KEY = "fake-key-split-tools-0123456789";
const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const envelope = { id: "c1", object: "chat.completion.chunk", created: 0, model: "m" };
const chunk = (delta: unknown) => ev({ ...envelope, choices: [{ index: 0, delta, finish_reason: null }] });
/** Google's tool calls carry no index: the channel is the call's place in the list. */
const args = (text: string) => chunk({ tool_calls: [{ function: { arguments: text } }] });

function relay(events: string[]): string {
  const t = new SseTally(KEY);
  return events.map((e) => t.push(new TextEncoder().encode(e)).join("")).join("") + t.flush();
}

describe("the key split across a tool call's arguments and reasoning", () => {
  it("is replaced where it completes, its start held back meanwhile, and a start never completed goes out before [DONE]", () => {
    const out = relay([
      chunk({ tool_calls: [{ id: "t1", function: { name: "run", arguments: '{"cmd":"echo fake-key-sp' } }] }),
      args('lit-tools-0123456789"}'),
      chunk({ reasoning_content: "I saw fake-key-split-t" }),
      "data: [DONE]\n\n",
    ]);
    expect(out).toBe(
      chunk({ tool_calls: [{ id: "t1", function: { name: "run", arguments: '{"cmd":"echo ' } }] }) +
        args('[redacted]"}') +
        chunk({ reasoning_content: "I saw " }) +
        ev({ ...envelope, choices: [{ index: 0, delta: { reasoning_content: "fake-key-split-t" } }] }) +
        "data: [DONE]\n\n",
    );
  });

  it("a tool call's held start is relayed in front of its next piece, not in a chunk without arguments", () => {
    const out = relay([args("fake-key-split"), chunk({ tool_calls: [{ function: { name: "run" } }] }), args(" is a name"), "data: [DONE]\n\n"]);
    expect(out).toBe(args("") + chunk({ tool_calls: [{ function: { name: "run" } }] }) + args("fake-key-split is a name") + "data: [DONE]\n\n");
  });
});
