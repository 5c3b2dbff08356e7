// What an invite page counts as unread: messages to its reader (by the name
// they write under) that came while they were not at the page, and the page
// title that shows how many. Pure.
import type { StepLine } from "../trajectory/headlong";

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** A message step to `me` from someone else (the mind, unprompted or in reply). */
export function messageToMe(step: StepLine, me: string): { from: string; content: string } | null {
  if (step.type !== "message" || !me.trim()) return null;
  const { from, to, content } = step as { from?: unknown; to?: unknown; content?: unknown };
  if (typeof from !== "string" || typeof to !== "string" || typeof content !== "string") return null;
  return same(to, me) && !same(from, me) ? { from, content } : null;
}

/** The page's title with the unread count in front, as mail and chat tabs show it: "(2) Sol". */
export function titleWithUnread(base: string, unread: number): string {
  return unread > 0 ? `(${unread}) ${base}` : base;
}
