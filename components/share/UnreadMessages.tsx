"use client";
// Messages to an invite's reader that came while they were away from the
// page: counted in the page title ("(2) Sol · Reverie") and beside the box
// until they touch the page (a key, a click), and, when they said yes and the
// browser allows it, shown as a system notification while the page is hidden
// or not focused.
import { useEffect, useRef, useState } from "react";
import { messageToMe, titleWithUnread } from "@/lib/sharing/unread";
import type { NewSteps } from "./use-shared-link";

const NOTIFY_KEY = "reverie-invite-notify";
const canNotify = () => typeof window !== "undefined" && "Notification" in window;

/** The unread count for `me` (the name the reader writes under), kept in the page title; a key or a click on the page clears it (sending takes one). */
export function useUnread(newSteps: NewSteps, me: string, mindName: string): number {
  const [unread, setUnread] = useState(0);
  const meRef = useRef(me);
  meRef.current = me;
  useEffect(
    () =>
      newSteps((step) => {
        const msg = messageToMe(step, meRef.current);
        if (!msg) return;
        setUnread((n) => n + 1);
        const away = document.hidden || !document.hasFocus();
        if (away && canNotify() && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "on") {
          new Notification(`${msg.from} wrote to you`, { body: msg.content.slice(0, 200), tag: "reverie-invite" });
        }
      }),
    [newSteps],
  );
  useEffect(() => {
    const base = `${mindName} · Reverie`;
    document.title = titleWithUnread(base, unread);
  }, [unread, mindName]);
  useEffect(() => {
    const clear = () => setUnread(0);
    window.addEventListener("pointerdown", clear);
    window.addEventListener("keydown", clear);
    return () => {
      window.removeEventListener("pointerdown", clear);
      window.removeEventListener("keydown", clear);
    };
  }, []);
  return unread;
}

/** The count beside the message box, and the switch for system notifications. */
export function UnreadLine({ unread }: { unread: number }) {
  const [notify, setNotify] = useState<"on" | "off" | "blocked" | "unsupported">("off");
  useEffect(() => {
    if (!canNotify()) return setNotify("unsupported");
    if (Notification.permission === "denied") return setNotify("blocked");
    setNotify(localStorage.getItem(NOTIFY_KEY) === "on" && Notification.permission === "granted" ? "on" : "off");
  }, []);

  async function toggle() {
    if (notify === "on") {
      localStorage.setItem(NOTIFY_KEY, "off");
      return setNotify("off");
    }
    const answer = await Notification.requestPermission();
    if (answer !== "granted") return setNotify(answer === "denied" ? "blocked" : "off");
    localStorage.setItem(NOTIFY_KEY, "on");
    setNotify("on");
  }

  return (
    <div className="flex flex-wrap items-center gap-2 text-xs text-stone-600 dark:text-stone-400">
      {unread > 0 && (
        <span data-testid="unread-count" data-count={unread} role="status" className="rounded bg-indigo-100 px-1.5 py-0.5 font-medium text-indigo-900 dark:bg-indigo-950 dark:text-indigo-200">
          {unread} new message{unread === 1 ? "" : "s"} to you
        </span>
      )}
      {notify !== "unsupported" && (
        <button
          type="button"
          data-testid="notify-toggle"
          aria-pressed={notify === "on"}
          disabled={notify === "blocked"}
          onClick={() => void toggle()}
          className="min-h-10 rounded border border-stone-300 px-2 py-0.5 sm:min-h-0 disabled:opacity-50 dark:border-stone-700"
        >
          {notify === "on" ? "Notifications on" : notify === "blocked" ? "Notifications blocked by this browser" : "Notify me of messages to me"}
        </button>
      )}
    </div>
  );
}
