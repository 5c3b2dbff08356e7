// The line under each of a person's messages: what became of it.
import type { Received } from "@/lib/trajectory/chat";

/** How much of a failure's reason the status line shows; the stream has it whole. */
const REASON_CHARS = 80;

export function shortReason(reason: string | undefined): string {
  const first = (reason ?? "").split("\n")[0]?.trim() ?? "";
  if (!first) return "no reason was recorded";
  return first.length > REASON_CHARS ? `${first.slice(0, REASON_CHARS - 1).trimEnd()}…` : first;
}

export function statusText(entry: Pick<Received, "status" | "reason">): string {
  switch (entry.status) {
    case "thinking":
      return "thinking about it…";
    case "replied":
      return "replied";
    case "no-reply":
      return "read it and chose not to answer";
    case "failed":
      return `failed — ${shortReason(entry.reason)}`;
  }
}
