// The Chat tab's conversation (components/chat/ConversationView), on its
// server-rendered HTML: what the mind wrote on its own (chat send, no
// reply_to) carries an "unprompted" label and data-unprompted; its replies,
// and its answers to messages out of view, do not.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ConversationView } from "@/components/chat/ConversationView";
import { conversations } from "@/lib/trajectory/chat";
import type { StepOf } from "@/lib/trajectory/schema";
import { id } from "../../helpers/steps";

const SELF = "Ada";
const ts = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + n * 1000).toISOString();

function message(n: number, from: string, to: string, content: string, reply_to?: number): StepOf<"message"> {
  return { type: "message", step_id: id(n), ts: ts(n), source: "chat", from, to, content, ...(reply_to === undefined ? {} : { reply_to: id(reply_to) }) };
}

/** Each rendered bubble (an element with a data-step-id): its test id, whether it is marked unprompted, and its text. */
function bubbles(html: string) {
  const doc = html.replace(/<time[^>]*>[^<]*<\/time>/g, "");
  return [...doc.matchAll(/<div data-testid="([^"]+)" data-step-id="([^"]+)"([^>]*)>(.*?)<\/div>/g)].map(([, testId, stepId, attrs, inner]) => ({
    testId,
    stepId,
    unprompted: /data-unprompted="true"/.test(attrs ?? ""),
    text: (inner ?? "").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim(),
  }));
}

describe("ConversationView: unprompted messages", () => {
  it("labels what the mind wrote on its own, and not its replies", () => {
    const steps = [
      message(1, SELF, "cy", "I found something you may like."),
      message(2, "cy", SELF, "show me"),
      message(3, SELF, "cy", "Here it is.", 2),
      // An answer to a message out of view stands on its own, but it is still a reply.
      message(4, SELF, "cy", "About that old question: yes.", 99),
    ];
    const [conversation] = conversations(steps, SELF);
    if (!conversation) throw new Error("no conversation");
    const html = renderToStaticMarkup(<ConversationView conversation={conversation} />);
    expect(bubbles(html)).toEqual([
      { testId: "chat-sent", stepId: id(1), unprompted: true, text: "Ada · unprompted I found something you may like." },
      { testId: "chat-received", stepId: id(2), unprompted: false, text: "cy · show me" },
      { testId: "chat-reply", stepId: id(3), unprompted: false, text: "Ada · Here it is." },
      { testId: "chat-sent", stepId: id(4), unprompted: false, text: "Ada · About that old question: yes." },
    ]);
    expect(html.match(/data-testid="chat-unprompted"/g)).toHaveLength(1);
  });
});
