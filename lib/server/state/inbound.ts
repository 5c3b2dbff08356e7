import "server-only";
// The server's way in for a mind it hosts (the inbound side of its SQL
// state): what waits in its inbox (guests' messages, alerts, operators'
// changes to its memory and their controls, lib/server/inbox) is delivered
// when the runner pulls it (its poll sees something waiting, or the mind is
// just taken). A step arrives for the mind's one writer to write (stamped as
// it takes it, under its lease epoch); a change is made by the mind and
// recorded by it. Each is delivered once: its step has the request's id, and
// what the inbox reads is what has no step yet.
import { errorText } from "@/lib/mind/events";
import type { Inbound, InboundPort, InboundSink } from "@/lib/mind/state/inbound";
import type { Step } from "@/lib/trajectory/schema";
import { inboxItems } from "@/lib/sync/inbox-steps";
import type { Sql } from "../db/sql";
import { inboxContent } from "../inbox/content";

export interface SqlInboundPort extends InboundPort {
  /** Deliver what waits now, if the mind is open; resolves once it is stored and handed over. One pull at a time. */
  pull(): Promise<void>;
}

export interface SqlInboundOptions {
  now: () => number;
  /** Keep settings its owner changed (keyless, as the server keeps them) as the mind's record, before their config step is written. */
  recordSettings: (settings: Record<string, unknown>) => Promise<void>;
  log?: (line: string) => void;
}

export function sqlInbound(sql: Sql, mindId: string, o: SqlInboundOptions): SqlInboundPort {
  let sink: InboundSink | null = null;
  let chain = Promise.resolve();
  const deliver = async (to: InboundSink) => {
    const [row] = await sql.query<{ settings: string | null }>("SELECT settings FROM sync_minds WHERE id = $1", [mindId]);
    const name = nameOf(row?.settings) ?? "mind";
    const items = inboxItems(await inboxContent(sql, mindId), name, o.now());
    if (!items.length) return;
    let steps: Step[] = [];
    const flush = async () => {
      if (!steps.length) return;
      const batch = steps;
      steps = [];
      await to.arrive(batch);
    };
    for (const item of items) {
      if (item.kind === "step" && item.settings) {
        // Its owner's settings: its record first, then the config step, so the next stretch starts with them.
        await flush();
        await o.recordSettings(item.settings);
        steps.push(item.step);
      } else if (item.kind === "step") steps.push(item.step);
      else {
        await flush();
        await to.change(item.change);
      }
    }
    await flush();
  };
  return {
    async open(s): Promise<Inbound> {
      sink = s;
      return {
        async close() {
          sink = null;
          await chain;
        },
      };
    },
    pull() {
      const next = chain.then(async () => {
        if (sink) await deliver(sink);
      });
      chain = next.catch((e: unknown) => o.log?.(`runner: ${mindId}: could not deliver what came in: ${errorText(e)}`));
      return next;
    },
  };
}

function nameOf(settings: string | null | undefined): string | undefined {
  if (!settings) return undefined;
  try {
    const parsed: unknown = JSON.parse(settings);
    return parsed && typeof parsed === "object" && "name" in parsed && typeof parsed.name === "string" ? parsed.name : undefined;
  } catch {
    return undefined;
  }
}
