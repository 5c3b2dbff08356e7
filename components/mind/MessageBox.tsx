"use client";
import { useState, type KeyboardEvent } from "react";
import type { Messaging } from "@/lib/store/view/hooks";
import { useShortcut } from "../shortcuts/useShortcut";

/** Type a message; Enter (or Ctrl/⌘+Enter, from anywhere on the page) sends, Shift+Enter makes a new line. `nameTestId`: the name field's test id (a guest's page has its own). */
export function MessageBox({ mindName, messaging, nameTestId = "sender-name" }: { mindName: string; messaging: Messaging; nameTestId?: string }) {
  const { sender } = messaging;
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);

  async function send() {
    if (!text.trim() || sender === undefined) return;
    try {
      await messaging.send(text);
      setText("");
      setError(null);
    } catch (e) {
      // The text stays in the box, so nothing typed is lost.
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  // From anywhere on the page, so a reader in the stream can send what they wrote without going back to the box.
  useShortcut(
    "Mod+Enter",
    () => {
      if (!text.trim() || sender === undefined) return false;
      void send();
    },
    "Send the message",
    { inInputs: true },
  );

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  }

  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div className="flex flex-wrap items-end gap-2 sm:flex-nowrap">
        <label className="basis-full text-xs text-stone-500 sm:basis-auto dark:text-stone-400">
          as
          <input
            aria-label="Your name"
            data-testid={nameTestId}
            className="ml-1 w-24 rounded border border-stone-300 bg-white px-1 py-0.5 text-xs dark:border-stone-700 dark:bg-stone-900"
            value={sender ?? ""}
            onChange={(e) => messaging.setSender(e.target.value)}
          />
        </label>
        <textarea
          data-testid="message-input"
          aria-label={`Message to ${mindName}`}
          placeholder={`Write to ${mindName}… (Enter or Ctrl+Enter sends, Shift+Enter for a new line)`}
          className="h-16 min-w-0 flex-1 resize-y rounded border border-stone-300 bg-white px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none dark:border-stone-700 dark:bg-stone-900"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="submit"
          data-testid="send-message"
          aria-keyshortcuts="Control+Enter Meta+Enter"
          disabled={!text.trim()}
          className="min-h-10 rounded bg-emerald-600 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-500 disabled:opacity-40"
        >
          Send
        </button>
      </div>
      {error && (
        <p role="alert" data-testid="message-error" className="text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </form>
  );
}
