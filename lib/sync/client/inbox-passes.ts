// The sync engine's passes of what comes in and goes in beside the steps: the
// server's inbox taken into this browser's mind (through the one list of its
// kinds), and what this browser handed the mind forwarded to the server while
// another home holds it.
import type { Clock } from "../../mind/ports";
import { inboxItems, type InboxItem } from "../inbox-steps";
import type { OwnerChange } from "../inbox-wire";
import type { SyncClient } from "./client";

/** What these passes need of the mind in this browser (the engine's LocalMind has it). */
export interface InboxLocal {
  name(): Promise<string>;
  /**
   * Take one thing the server's inbox held (lib/sync/inbox-steps.ts lists its
   * kinds): a step is handed to the mind (its writer takes it while it runs),
   * a control request is obeyed here too, a change to its memory is made (now,
   * or by its running mind); false when it was there already.
   */
  take(item: InboxItem): Promise<boolean>;
  /** What this browser has handed the mind and it has not taken yet (its door, its queued changes), as its owner's changes: forwarded to the server while another home holds the mind. */
  handedIn(): Promise<OwnerChange[]>;
}

/** Where the mind lives, as the sync record says. */
interface Where {
  get(): Promise<{ server_mind?: string; write_token?: string; keep_alive?: boolean; epoch?: number } | null>;
}

export function inboxPasses({ client, local, state, clock }: { client: SyncClient; local: InboxLocal; state: Where; clock: Clock }) {
  async function inboxPass(): Promise<number> {
    const rec = await state.get();
    if (!rec?.server_mind || !rec.write_token) return 0;
    const content = await client.inbox(rec.server_mind, rec.write_token);
    if (content.messages.length === 0 && content.controls.length === 0 && content.alerts.length === 0 && content.curations.length === 0) return 0;
    // In the order every home takes them (controls last, in the order they were asked: the last one's effect is what stays).
    let delivered = 0;
    for (const item of inboxItems(content, await local.name(), clock.now())) if (await local.take(item)) delivered++;
    return delivered;
  }
  
  /** Changes this engine forwarded (the server keeps each id once; this saves asking again). */
  const forwarded = new Set<string>();
  /**
   * While another home holds the mind (keep-alive, and this browser has no
   * lease epoch), what this browser handed it goes to the server, which gives
   * it to whichever home holds the mind: its owner's changes reach it wherever
   * it lives. Should this browser take the mind first, its own writer takes
   * them (the server's copy of a step it has is never taken twice).
   */
  async function forwardPass(): Promise<number> {
    const rec = await state.get();
    if (!rec?.server_mind || !rec.write_token || !rec.keep_alive || rec.epoch !== undefined) return 0;
    let sent = 0;
    for (const change of await local.handedIn()) {
      if (forwarded.has(change.id)) continue;
      await client.owner(rec.server_mind, rec.write_token, change);
      forwarded.add(change.id);
      sent++;
    }
    return sent;
  }

  return { inboxPass, forwardPass };
}
