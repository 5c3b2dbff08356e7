"use client";
// One conversation: each of the person's messages, the line saying what
// became of it, and the mind's reply under it; what the mind wrote on its
// own (no reply_to) is labelled "unprompted". Message texts are Markdown
// that never passes HTML through (../markdown).
import { useEffect, useRef } from "react";
import type { ChatEntry, Conversation } from "@/lib/trajectory/chat";
import type { StepOf } from "@/lib/trajectory/schema";
import { Markdown } from "../markdown/Markdown";
import { statusText } from "./status";

type Message = StepOf<"message">;

const STATUS_CLASS = {
  thinking: "text-indigo-700 dark:text-indigo-300",
  replied: "text-emerald-700 dark:text-emerald-400",
  "no-reply": "text-stone-500 dark:text-stone-400",
  failed: "text-red-700 dark:text-red-400",
} as const;

function Bubble({ message, mine, testId }: { message: Message; mine: boolean; testId: string }) {
  // The mind wrote first (chat send), answering nothing: worth telling apart from a reply.
  const unprompted = mine && message.reply_to === undefined;
  return (
    <div
      data-testid={testId}
      data-step-id={message.step_id}
      {...(unprompted ? { "data-unprompted": "true" } : {})}
      className={`flex flex-col ${mine ? "items-end" : "items-start"}`}
    >
      <span className="text-xs text-stone-500 dark:text-stone-400">
        {message.from} · <time dateTime={message.ts}>{new Date(message.ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</time>
        {unprompted && (
          <span data-testid="chat-unprompted" title={`${message.from} wrote this on its own, not in reply to a message`} className="ml-1.5 rounded bg-amber-100 px-1 text-[0.65rem] font-medium uppercase tracking-wide text-amber-800 dark:bg-amber-950 dark:text-amber-300">
            unprompted
          </span>
        )}
      </span>
      <Markdown text={message.content} className={`max-w-[80%] rounded-lg px-3 py-1.5 ${mine ? "bg-indigo-50 dark:bg-indigo-950" : "bg-stone-100 dark:bg-stone-900"}`} />
    </div>
  );
}

function Entry({ entry }: { entry: ChatEntry }) {
  if (entry.kind === "sent") {
    return (
      <li>
        <Bubble message={entry.message} mine testId="chat-sent" />
      </li>
    );
  }
  return (
    <li data-testid="chat-message" data-status={entry.status} className="flex flex-col gap-1">
      <Bubble message={entry.message} mine={false} testId="chat-received" />
      <p data-testid="message-status" className={`text-xs ${STATUS_CLASS[entry.status]}`}>
        {statusText(entry)}
      </p>
      {entry.reply && <Bubble message={entry.reply} mine testId="chat-reply" />}
    </li>
  );
}

export function ConversationView({ conversation }: { conversation: Conversation }) {
  const end = useRef<HTMLDivElement>(null);
  const count = conversation.entries.length;
  const replies = conversation.entries.filter((e) => e.kind === "received" && e.reply).length;
  // Follow the conversation as it grows (a new message, a new reply).
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [conversation.person, count, replies]);

  return (
    <div role="log" aria-label={`Conversation with ${conversation.person}`} className="min-h-0 flex-1 overflow-y-auto pr-1">
      <ol className="flex flex-col gap-3">
        {conversation.entries.map((e) => (
          <Entry key={e.message.step_id} entry={e} />
        ))}
      </ol>
      {conversation.duplicates > 0 && (
        <p data-testid="chat-duplicates" className="mt-2 text-xs text-stone-500 dark:text-stone-400">
          {conversation.duplicates === 1 ? "1 more reply to a message that already had one is not shown." : `${conversation.duplicates} more replies to messages that already had one are not shown.`}
        </p>
      )}
      <div ref={end} />
    </div>
  );
}
