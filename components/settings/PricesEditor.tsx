"use client";
// This browser's price table, as JSON: provider/model -> USD per million
// tokens. Built-in entries are a starting point; edits are kept in this
// browser and price every mind here whose model has no price of its own.
import { useState } from "react";
import { parsePriceTable } from "@/lib/llm/price";
import { type PriceTable } from "@/lib/mind/settings/model";
import { usePriceActions, usePriceTable } from "@/lib/store/view/hooks-settings";
import { inputClass } from "./ModelFields";

export function PricesEditor() {
  const table = usePriceTable();
  return (
    <details data-testid="prices-editor" className="rounded border border-stone-200 px-3 py-2 dark:border-stone-800">
      <summary className="cursor-pointer text-sm">Prices in this browser (USD per million tokens)</summary>
      {table ? <PricesForm table={table} /> : <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}
    </details>
  );
}

function PricesForm({ table }: { table: PriceTable }) {
  const [text, setText] = useState(() => JSON.stringify(table, null, 1));
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const prices = usePriceActions();
  async function save() {
    const parsed = parsePriceTable(text);
    if (!parsed.ok) return setNote({ ok: false, text: `Not saved: ${parsed.error}` });
    try {
      await prices.save(parsed.table);
      setNote({ ok: true, text: `Saved ${Object.keys(parsed.table).length} prices; running minds use them from their next start.` });
    } catch (e) {
      setNote({ ok: false, text: `Not saved: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  return (
    <div className="mt-2 grid gap-2">
      <textarea
        data-testid="prices-json"
        className={`${inputClass} h-48 font-mono text-xs`}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setNote(null);
        }}
        spellCheck={false}
      />
      <div className="flex items-center gap-3">
        <button type="button" data-testid="prices-save" onClick={() => void save()} className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900">
          Save prices
        </button>
        {note && (
          <span role={note.ok ? "status" : "alert"} data-testid="prices-note" className={`text-sm ${note.ok ? "text-stone-500 dark:text-stone-400" : "text-red-700 dark:text-red-400"}`}>
            {note.text}
          </span>
        )}
      </div>
    </div>
  );
}
