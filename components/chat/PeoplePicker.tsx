"use client";
// Whom the chat view shows: a list on wide screens, a select on narrow ones.
import type { Conversation } from "@/lib/trajectory/chat";

export function PeoplePicker({ people, selected, onSelect }: { people: Conversation[]; selected: string; onSelect: (person: string) => void }) {
  return (
    <>
      <label className="flex items-center gap-2 text-sm sm:hidden">
        Conversation with
        <select
          data-testid="chat-person-select"
          value={selected}
          onChange={(e) => onSelect(e.target.value)}
          className="flex-1 rounded border border-stone-300 bg-white px-1 py-0.5 dark:border-stone-700 dark:bg-stone-900"
        >
          {people.map((c) => (
            <option key={c.person} value={c.person}>
              {c.person}
            </option>
          ))}
        </select>
      </label>
      <nav aria-label="People" className="hidden w-40 shrink-0 overflow-y-auto border-r border-stone-200 pr-2 sm:block dark:border-stone-800">
        <ul className="flex flex-col gap-1">
          {people.map((c) => (
            <li key={c.person}>
              <button
                type="button"
                data-testid="chat-person"
                aria-current={c.person === selected ? "true" : undefined}
                onClick={() => onSelect(c.person)}
                className={`w-full truncate rounded px-2 py-1 text-left text-sm ${c.person === selected ? "bg-indigo-100 font-medium text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100" : "hover:bg-stone-100 dark:hover:bg-stone-900"}`}
              >
                {c.person}
                <span className="ml-1 text-xs text-stone-500 dark:text-stone-400">({c.entries.length})</span>
              </button>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}
