// What an invite page counts as a message to its reader, and the title that shows the count.
import { describe, expect, it } from "vitest";
import { messageToMe, titleWithUnread } from "@/lib/sharing/unread";
import type { StepLine } from "@/lib/trajectory/headlong";

const msg = (from: string, to: string, content = "hi"): StepLine => ({ type: "message", step_id: crypto.randomUUID(), ts: "2026-12-05T00:00:00.000Z", from, to, content, source: "chat" });

describe("messages to an invite's reader", () => {
  it("counts the mind's messages to the reader (any case, spaces around), not their own, not to others, not other steps", () => {
    expect(messageToMe(msg("Sol", "Gwen", "The tomatoes are ripe."), " gwen ")).toEqual({ from: "Sol", content: "The tomatoes are ripe." });
    expect(messageToMe(msg("Gwen", "Sol"), "Gwen")).toBeNull();
    expect(messageToMe(msg("Sol", "Bo"), "Gwen")).toBeNull();
    expect(messageToMe(msg("Sol", "Gwen"), "")).toBeNull();
    expect(messageToMe({ type: "thought", step_id: crypto.randomUUID(), ts: "2026-12-05T00:00:00.000Z", content: "to Gwen" }, "Gwen")).toBeNull();
  });

  it("puts the count in front of the title, and leaves it alone at none", () => {
    expect(titleWithUnread("Sol · Reverie", 2)).toBe("(2) Sol · Reverie");
    expect(titleWithUnread("Sol · Reverie", 0)).toBe("Sol · Reverie");
  });
});
