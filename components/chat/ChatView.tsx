"use client";
// The mind's conversations: people on the left (a select on narrow screens),
// the chosen conversation on the right. The message box stays in the page's
// footer; the newest conversation is shown until the reader picks another.
import { useState } from "react";
import { useChat } from "@/lib/store/view/hooks";
import { ConversationView } from "./ConversationView";
import { PeoplePicker } from "./PeoplePicker";

export function ChatView({ mindId, mindName }: { mindId: string; mindName: string }) {
  const chats = useChat(mindId);
  const [picked, setPicked] = useState<string | null>(null);

  const body = () => {
    if (chats === undefined) return <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>;
    if (chats === null) return <p className="text-sm text-stone-500 dark:text-stone-400">There is no such mind in this browser.</p>;
    if (chats.length === 0) {
      return <p className="text-sm text-stone-500 dark:text-stone-400">Nobody has written to {mindName} yet. Write below; the conversation shows here.</p>;
    }
    const people = [...chats].sort((a, b) => b.lastTs.localeCompare(a.lastTs));
    const shown = people.find((c) => c.person === picked) ?? people[0];
    if (!shown) return null;
    return (
      <>
        <PeoplePicker people={people} selected={shown.person} onSelect={setPicked} />
        <ConversationView conversation={shown} />
      </>
    );
  };

  return (
    <section data-testid="chat-view" aria-label={`${mindName}'s conversations`} className="flex min-h-0 flex-1 flex-col gap-2 py-2 sm:flex-row sm:gap-3">
      {body()}
    </section>
  );
}
