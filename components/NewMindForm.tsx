"use client";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { settingsProblems, type Provider } from "@/lib/llm/settings";
import { db, requestPersistence } from "@/lib/store/db";
import { createMind, NewMindInput } from "@/lib/store/minds";
import { inputClass as input, ModelFields, readModelFields } from "./ModelFields";
import { PermissionsFields } from "./PermissionsFields";
import { readPermissionFields } from "./permissions-form";
import { BudgetFields } from "./BudgetFields";
import { priceProblems, readBudgetFields, withProxyPrice } from "./money-form";
import { usePriceTable, useProxyOffer } from "./money-hooks";

const DEFAULT_PERSONA = "Curious and patient. You like to understand how things work, keep notes in your workspace, and answer people kindly and briefly.";

export function NewMindForm() {
  const router = useRouter();
  const [provider, setProvider] = useState<Provider>("openai-compatible");
  // Until the person picks a provider, the host's proxy is preselected when it has one: a newcomer needs no key.
  const [picked, setPicked] = useState(false);
  const proxy = useProxyOffer();
  const prices = usePriceTable();
  useEffect(() => {
    if (proxy?.available && !picked) setProvider("proxy");
  }, [proxy, picked]);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const field = (k: string) => String(f.get(k) ?? "");
    const perms = readPermissionFields(f);
    const model = readModelFields(f, provider);
    const budget = readBudgetFields(f);
    const parsed = NewMindInput.safeParse({
      name: field("name"),
      persona: field("persona"),
      model: withProxyPrice(model.settings, proxy),
      permissions: perms.ok ? perms.permissions : undefined,
      // A missing or non-positive cap is a problem below, never a silent default.
      budget: budget.ok ? budget.budget : undefined,
    });
    // Every problem at once, the permissions' and caps' too; nothing is saved while there is one.
    const problems = [
      ...(parsed.success ? [...settingsProblems(parsed.data.model), ...priceProblems(parsed.data.model, prices ?? {})] : parsed.error.issues.map((i) => i.message)),
      ...model.problems,
      ...(perms.ok ? [] : perms.problems),
      ...(budget.ok ? [] : budget.problems),
    ];
    if (!parsed.success || problems.length) {
      setErrors(problems);
      return;
    }
    setBusy(true);
    setErrors([]);
    try {
      const mind = await createMind(db(), parsed.data);
      // A mind's life is in IndexedDB: ask the browser to keep it (best effort).
      void requestPersistence();
      router.push(`/mind/${mind.id}`);
    } catch (err) {
      setErrors([`The mind could not be saved: ${err instanceof Error ? err.message : String(err)}`]);
      setBusy(false);
    }
  }

  return (
    <section className="mt-10" aria-labelledby="new-mind-heading">
      <h2 id="new-mind-heading" className="text-lg font-medium">
        New mind
      </h2>
      <form onSubmit={onSubmit} className="mt-3 grid gap-4 rounded border border-stone-200 p-4 dark:border-stone-800" noValidate>
        <label className="block text-sm">
          Name
          <input name="name" data-testid="new-mind-name" className={input} placeholder="Ada" required maxLength={60} autoComplete="off" />
        </label>
        <label className="block text-sm">
          Persona
          <textarea name="persona" data-testid="new-mind-persona" className={`${input} h-24`} defaultValue={DEFAULT_PERSONA} />
        </label>
        <ModelFields
          provider={provider}
          onProvider={(p) => {
            setPicked(true);
            setProvider(p);
          }}
          proxy={proxy}
          prices={prices}
        />
        <BudgetFields />
        <PermissionsFields />
        <p className="text-xs text-stone-500 dark:text-stone-400">
          {provider === "proxy"
            ? "The mind calls the model through this host's proxy: no key of yours is needed, and the host's key never reaches this browser."
            : "The key stays in this browser's storage. The mind calls the model directly from this tab."}
        </p>
        {errors.length > 0 && (
          <ul role="alert" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="form-errors">
            {errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        )}
        <div>
          <button
            type="submit"
            data-testid="create-mind"
            disabled={busy}
            className="rounded bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-400 disabled:opacity-50"
          >
            {busy ? "Creating…" : "Create and start"}
          </button>
        </div>
      </form>
    </section>
  );
}
