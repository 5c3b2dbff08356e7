"use client";
// A read-only URL with a copy button: the field can also be selected and copied by hand.
import { useState } from "react";

export function CopyField({ testId, label, value }: { testId: string; label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // No clipboard permission: the field is selectable.
      setCopied(false);
    }
  };
  return (
    <span className="flex max-w-full min-w-0 items-center gap-1">
      <input
        readOnly
        data-testid={testId}
        aria-label={label}
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        className="w-72 min-w-0 max-w-full shrink rounded border border-stone-300 bg-stone-50 px-1 py-0.5 font-mono dark:border-stone-700 dark:bg-stone-900"
      />
      <button type="button" aria-label={`Copy ${label.toLowerCase()}`} onClick={() => void copy()} className="min-h-10 shrink-0 rounded border border-stone-300 px-2 py-0.5 hover:bg-stone-100 sm:min-h-0 dark:border-stone-700 dark:hover:bg-stone-900">
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
