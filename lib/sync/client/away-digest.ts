// What a mind did while it lived elsewhere (on the server, or in another
// browser), told when its tab takes it back: how many steps, wakes and
// replies, what it spent, and where that stretch starts in the stream. Pure.
import { isKind, stepUsage, type Step } from "../../trajectory/schema";

export interface AwayDigest {
  steps: number;
  wakes: number;
  /** Messages the mind sent (answers and messages it started). */
  replies: number;
  /** What its model calls cost, USD. */
  usd: number;
  /** The first step of the stretch: the digest links into the stream there. */
  firstStep?: string;
  /** ISO times of the stretch's first and last steps. */
  from?: string;
  to?: string;
  /** Where its wakes ran ("server" for a runner); absent when no wake said. */
  home?: "tab" | "server";
}

export function awayDigest(steps: readonly Step[], selfName: string): AwayDigest {
  let wakes = 0;
  let replies = 0;
  let usd = 0;
  let home: AwayDigest["home"];
  for (const s of steps) {
    if (isKind(s, "wake")) {
      wakes++;
      home = s.home ?? home;
    } else if (isKind(s, "message") && s.from === selfName) replies++;
    usd += stepUsage(s)?.usd ?? 0;
  }
  const first = steps[0];
  const last = steps[steps.length - 1];
  return {
    steps: steps.length,
    wakes,
    replies,
    usd,
    ...(first ? { firstStep: first.step_id, from: first.ts } : {}),
    ...(last ? { to: last.ts } : {}),
    ...(home ? { home } : {}),
  };
}

/** One line for the page: "While you were away it took 42 steps over 7 wakes, sent 2 replies and spent $0.0131." */
export function digestLine(d: AwayDigest): string {
  const where = d.home === "server" ? " on the server" : "";
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `While you were away it thought${where}: ${plural(d.steps, "step", "steps")}, ${plural(d.wakes, "wake", "wakes")}, ${plural(d.replies, "reply", "replies")}, $${d.usd.toFixed(4)} spent.`;
}
