"use client";
// A mind's settings (its page's Settings tab), changed only by its human: the
// model, the pacing and its quiet hours, the iteration limit, the spend caps and the permissions.
// Saving records a `config` step and restarts the loop; the recent ones are listed below the form.
import { useState, type FormEvent } from "react";
import { settingsProblems } from "@/lib/llm/settings";
import { type Provider } from "@/lib/mind/settings/model";
import { useMindActions, usePriceTable } from "@/lib/store/view/hooks-settings";
import { inputClass, ModelFields, readModelFields } from "./ModelFields";
import { PermissionsFields } from "./PermissionsFields";
import { readPermissionFields } from "./permissions-form";
import { BudgetFields } from "./BudgetFields";
import { priceProblems, readBudgetFields, withProxyPrice } from "./money-form";
import { useProxyOffer } from "./money-hooks";
import { PricesEditor } from "./PricesEditor";
import { ConfigHistory } from "./ConfigHistory";
import { SelfHistory } from "./SelfHistory";
import { SelfTexts } from "./SelfTexts";
import { QuietHoursFields } from "./QuietHoursFields";
import { readQuietFields } from "./quiet-form";
import type { MindSettings } from "@/lib/mind/settings/settings";

// The running tab's worker sees the `config` step and restarts with the new settings.
export function SettingsPanel({ mind }: { mind: MindSettings }) {
  const [provider, setProvider] = useState<Provider>(mind.model.provider);
  const [errors, setErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const proxy = useProxyOffer();
  const prices = usePriceTable();
  const minds = useMindActions();
  const savedKey = provider === mind.model.provider ? mind.model.apiKey : undefined;

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const num = (k: string) => Number(f.get(k));
    const perms = readPermissionFields(f);
    const model = readModelFields(f, provider, savedKey);
    const budget = readBudgetFields(f);
    const quiet = readQuietFields(f);
    const parsed = minds.checkSettings({
      model: withProxyPrice(model.settings, proxy),
      budget: budget.ok ? budget.budget : mind.budget,
      // Quiet hours that do not check are listed with the other problems below, and nothing is saved.
      pacing: { base_s: num("base_s"), cap_s: num("cap_s"), ticks_per_level: num("ticks_per_level"), ...(quiet.ok && quiet.quiet ? { quiet: quiet.quiet } : {}) },
      max_iterations: num("max_iterations"),
      summary_model: String(f.get("summary_model") ?? ""),
      permissions: perms.ok ? perms.permissions : mind.permissions,
    });
    const permProblems = [...model.problems, ...(perms.ok ? [] : perms.problems), ...(budget.ok ? [] : budget.problems), ...(quiet.ok ? [] : quiet.problems)];
    if (!parsed.success) return setErrors([...parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`), ...permProblems]);
    const problems = [...settingsProblems(parsed.data.model), ...priceProblems(parsed.data.model, prices ?? {})];
    if (parsed.data.pacing.cap_s < parsed.data.pacing.base_s) problems.push("The longest pause cannot be shorter than the first one.");
    problems.push(...permProblems);
    if (problems.length) return setErrors(problems);
    try {
      await minds.saveSettings(mind.id, parsed.data);
      setErrors([]);
      setSaved(true);
    } catch (err) {
      setErrors([`The settings could not be saved: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }

  const num = (name: string, label: string, value: number, min: number, max: number) => (
    <label className="block text-sm">
      {label}
      <input name={name} type="number" min={min} max={max} step="any" defaultValue={value} className={inputClass} data-testid={`settings-${name}`} />
    </label>
  );

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto py-3">
      <form onSubmit={onSubmit} onChange={() => setSaved(false)} className="grid gap-3 rounded border border-stone-200 p-3 dark:border-stone-800" data-testid="settings-panel" noValidate>
        <ModelFields provider={provider} onProvider={setProvider} testIdPrefix="settings-" initial={mind.model} keepKeyHint savedKey={savedKey} proxy={proxy} prices={prices} />
        <label className="block text-sm">
          Summary model (same provider and key; blank: the mind&apos;s own)
          <input name="summary_model" type="text" defaultValue={mind.summary_model ?? ""} placeholder="e.g. a cheaper model of the same provider" className={inputClass} data-testid="settings-summary-model" />
        </label>
        <BudgetFields initial={mind.budget} testIdPrefix="settings-" />
        <fieldset className="grid gap-3 sm:grid-cols-4">
          <legend className="mb-1 text-sm font-medium">Pacing when idle</legend>
          {num("base_s", "First pause (s)", mind.pacing.base_s, 1, 3600)}
          {num("cap_s", "Longest pause (s)", mind.pacing.cap_s, 1, 86400)}
          {num("ticks_per_level", "Idle wakes per level", mind.pacing.ticks_per_level, 1, 100)}
          {num("max_iterations", "Steps per run", mind.max_iterations, 1, 100)}
        </fieldset>
        <QuietHoursFields initial={mind.pacing.quiet} />
        <PermissionsFields initial={mind.permissions} />
        {errors.length > 0 && (
          <ul role="alert" data-testid="settings-errors" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        )}
        <div className="flex items-center gap-3">
          <button type="submit" data-testid="settings-save" className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500">
            Save
          </button>
          {saved && (
            <span role="status" className="text-sm text-stone-500 dark:text-stone-400">
              Saved; the change is recorded in the trajectory.
            </span>
          )}
        </div>
      </form>
      <ConfigHistory mindId={mind.id} />
      <SelfTexts mindId={mind.id} />
      <SelfHistory mindId={mind.id} />
      <PricesEditor />
    </div>
  );
}
