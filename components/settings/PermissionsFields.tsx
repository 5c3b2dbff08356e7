"use client";
// What the mind's sandbox may do: network (off, or an allow-list, for curl
// and real Node alike), real Node, and the limits. Shared by the new-mind
// form and the settings panel; the form reads it back with readPermissionFields.
import { useId, useRef, useState } from "react";
import { DEFAULT_PERMISSIONS, type Permissions } from "@/lib/trajectory/permissions";
import { inputClass } from "./ModelFields";
import { LIMIT_FIELDS, NETWORK_FIELD, unitField, unitFor, WEBCONTAINER_FIELD, type LimitField } from "./permissions-form";

export function PermissionsFields({ initial = DEFAULT_PERMISSIONS }: { initial?: Permissions }) {
  const [allowText, setAllowText] = useState(() => initial.network.allow.join("\n"));
  const prefixes = allowText.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return (
    <fieldset className="grid gap-3">
      <legend className="mb-1 text-sm font-medium">Permissions</legend>
      <label className="block text-sm">
        Network: URL prefixes the mind&apos;s <code>curl</code>, <code>node</code> and <code>npm</code> may reach, one per line (empty: no network)
        <textarea
          name={NETWORK_FIELD}
          data-testid="perm-network-allow"
          className={`${inputClass} h-16 font-mono`}
          value={allowText}
          onChange={(e) => setAllowText(e.target.value)}
          placeholder="https://api.example.com/v1/"
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <p data-testid="perm-network-status" aria-live="polite" className="text-xs text-stone-600 dark:text-stone-400">
        {prefixes.length === 0 ? <strong>Network: off</strong> : <>Network: on, only under {prefixes.join(", ")}</>}
      </p>
      {/* Real Node keeps to the same list (lib/shell/webcontainer/net-guard.ts): say so, since it is not curl. */}
      {prefixes.length === 0 ? (
        <p data-testid="settings-network-off" className="text-xs text-stone-600 dark:text-stone-400">
          Network is off: <code>curl</code>, <code>node</code> and <code>npm</code> in this mind&apos;s shell reach nothing.
        </p>
      ) : (
        <p data-testid="settings-network-node" className="text-xs text-stone-600 dark:text-stone-400">
          <code>node</code> and <code>npm</code> keep to the same list; <code>npm install</code> works only when npm&apos;s registry is under it.
        </p>
      )}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name={WEBCONTAINER_FIELD} data-testid="perm-webcontainer" defaultChecked={initial.webcontainer} />
        Real Node (WebContainer) when the browser allows it
      </label>
      <details data-testid="perm-limits" className="rounded border border-stone-200 px-3 py-2 dark:border-stone-800">
        <summary className="cursor-pointer text-sm">Limits</summary>
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          {LIMIT_FIELDS.map((field) => (
            <LimitInput key={field.key} field={field} value={initial.limits[field.key]} />
          ))}
        </div>
      </details>
    </fieldset>
  );
}

/** A number in a unit; where there is a choice of units, changing it converts the number. */
function LimitInput({ field, value }: { field: LimitField; value: number }) {
  const first = unitFor(field, value);
  const [unit, setUnit] = useState(first.label);
  const input = useRef<HTMLInputElement>(null);
  const factorOf = (label: string) => field.units.find((u) => u.label === label)?.factor ?? 1;
  const changeUnit = (next: string) => {
    const el = input.current;
    if (el && el.value.trim() !== "" && Number.isFinite(Number(el.value))) el.value = String(+((Number(el.value) * factorOf(unit)) / factorOf(next)).toFixed(3));
    setUnit(next);
  };
  const id = useId();
  return (
    <div className="text-sm">
      <label htmlFor={id}>{field.label}</label>
      <div className="flex items-center gap-2">
        <input ref={input} id={id} name={field.key} type="number" min={0} step="any" inputMode="decimal" defaultValue={value / first.factor} className={inputClass} data-testid={`perm-${field.key}`} aria-describedby={`${id}-unit`} />
        {field.units.length > 1 ? (
          <select
            id={`${id}-unit`}
            name={unitField(field.key)}
            aria-label={`Unit of ${field.label.toLowerCase()}`}
            data-testid={`perm-${field.key}-unit`}
            value={unit}
            onChange={(e) => changeUnit(e.target.value)}
            className={`${inputClass} w-24`}
          >
            {field.units.map((u) => (
              <option key={u.label}>{u.label}</option>
            ))}
          </select>
        ) : (
          <span id={`${id}-unit`} className="mt-1 text-stone-500 dark:text-stone-400">
            {first.label}
          </span>
        )}
      </div>
    </div>
  );
}
