// The chat view's status line: exactly the words the page shows.
import { describe, expect, it } from "vitest";
import { statusText } from "@/components/chat/status";

describe("statusText", () => {
  it("says what became of each message", () => {
    expect(
      [
        statusText({ status: "thinking" }),
        statusText({ status: "replied" }),
        statusText({ status: "no-reply" }),
        statusText({ status: "failed", reason: "HTTP 500: down" }),
        statusText({ status: "failed" }),
      ],
    ).toEqual(["thinking about it…", "replied", "read it and chose not to answer", "failed — HTTP 500: down", "failed — no reason was recorded"]);
  });

  it("keeps a long reason short: its first line, up to 80 characters", () => {
    const text = statusText({ status: "failed", reason: `${"x".repeat(200)}\nsecond line` });
    expect(text).toBe(`failed — ${"x".repeat(79)}…`);
  });
});
