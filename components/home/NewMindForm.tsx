"use client";
// A mind in under a minute: a name, a persona (from a preset or by hand) and
// the first thought it starts from, a model with a connection test, caps and
// pacing with what they would cost, permissions. Everything is checked at
// once on "Create and start"; a problem is listed and nothing typed is lost.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { modelLabel } from "@/lib/llm/settings";
import type { PriceTable } from "@/lib/mind/settings/model";
import type { ProxyOffer } from "@/lib/llm/proxy";
import { settingsProblems } from "@/lib/llm/settings";
import { type Provider } from "@/lib/mind/settings/model";
import { DEFAULT_PACING } from "@/lib/mind/pacing/pacing";
import { useMindActions, usePriceTable } from "@/lib/store/view/hooks-settings";
import { inputClass as input, ModelFields, readModelFields } from "../settings/ModelFields";
import { PermissionsFields } from "../settings/PermissionsFields";
import { readPermissionFields } from "../settings/permissions-form";
import { BudgetFields } from "../settings/BudgetFields";
import { priceProblems, readBudgetFields, withProxyPrice } from "../settings/money-form";
import { useProxyOffer } from "../settings/money-hooks";
import { draftForecast, draftPrice } from "../onboarding/forecast-draft";
import { OnboardingForecast } from "../onboarding/OnboardingForecast";
import { PacingFields } from "../onboarding/PacingFields";
import { readPacingFields } from "../onboarding/pacing-form";
import { QuietHoursFields } from "../settings/QuietHoursFields";
import { readQuietFields } from "../settings/quiet-form";

/** The pacing fields with the quiet hours' (when they are on and check), as one pacing. */
function readPacingWithQuiet(f: FormData): ReturnType<typeof readPacingFields> {
  const pacing = readPacingFields(f);
  const quiet = readQuietFields(f);
  if (!pacing.ok) return quiet.ok ? pacing : { ok: false, problems: [...pacing.problems, ...quiet.problems] };
  if (!quiet.ok) return quiet;
  return quiet.quiet ? { ok: true, pacing: { ...pacing.pacing, quiet: quiet.quiet } } : pacing;
}
import { FIRST_THOUGHT_FIELD, PersonaFields } from "../onboarding/PersonaFields";
import { useHydrated } from "../use-hydrated";

/** What the fields typed so far imply, for the live pacing sentence and cost forecast. */
function draftOf(f: FormData, provider: Provider, proxy: ProxyOffer | undefined, table: PriceTable) {
  const { settings } = readModelFields(f, provider);
  const pacing = readPacingWithQuiet(f);
  const budget = readBudgetFields(f);
  const price = draftPrice(settings, proxy, table);
  return {
    pacing,
    model: settings.model ? modelLabel(settings) : "",
    forecast: pacing.ok ? draftForecast(pacing.pacing, price, budget.ok ? budget.budget : undefined) : null,
  };
}

export function NewMindForm() {
  const router = useRouter();
  const hydrated = useHydrated();
  const [provider, setProvider] = useState<Provider>("openai-compatible");
  // Until the person picks a provider, the host's proxy is preselected when it has one: a newcomer needs no key.
  const [picked, setPicked] = useState(false);
  const proxy = useProxyOffer();
  const prices = usePriceTable();
  const minds = useMindActions();
  useEffect(() => {
    if (proxy?.available && !picked) setProvider("proxy");
  }, [proxy, picked]);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const errorsRef = useRef<HTMLUListElement>(null);
  const [snapshot, setSnapshot] = useState<FormData | null>(null);
  const refresh = useCallback(() => {
    if (formRef.current) setSnapshot(new FormData(formRef.current));
  }, []);
  // Read again once the fields a provider, the proxy's offer or the price table bring have rendered,
  // and once hydrated (a disabled fieldset's fields are not in its form's data).
  useEffect(refresh, [refresh, provider, proxy, prices, hydrated]);
  const draft = useMemo(() => (snapshot ? draftOf(snapshot, provider, proxy, prices ?? {}) : null), [snapshot, provider, proxy, prices]);
  // The list of problems takes the focus, so a keyboard user hears and reaches it; the fields keep what was typed.
  useEffect(() => {
    if (errors.length) errorsRef.current?.focus();
  }, [errors]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const field = (k: string) => String(f.get(k) ?? "");
    const perms = readPermissionFields(f);
    const model = readModelFields(f, provider);
    const budget = readBudgetFields(f);
    const pacing = readPacingWithQuiet(f);
    const parsed = minds.checkNew({
      name: field("name"),
      persona: field("persona"),
      first_thought: field(FIRST_THOUGHT_FIELD),
      pacing: pacing.ok ? pacing.pacing : undefined,
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
      ...(pacing.ok ? [] : pacing.problems),
    ];
    if (!parsed.success || problems.length) {
      setErrors(problems);
      return;
    }
    setBusy(true);
    setErrors([]);
    try {
      const mind = await minds.create(parsed.data);
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
      <form ref={formRef} onSubmit={onSubmit} onChange={refresh} className="mt-3 rounded border border-stone-200 p-4 dark:border-stone-800" noValidate aria-busy={!hydrated}>
        {/* Disabled until hydrated: what is typed before then would be lost to React's first render. */}
        <fieldset disabled={!hydrated} className="grid min-w-0 gap-4">
          <label className="block text-sm">
            Name
            <input name="name" data-testid="new-mind-name" className={input} placeholder="Ada" required maxLength={60} autoComplete="off" />
          </label>
          <PersonaFields />
          <ModelFields
            provider={provider}
            onProvider={(p) => {
              setPicked(true);
              setProvider(p);
            }}
            proxy={proxy}
            prices={prices}
            connectionTestIds={{ button: "connection-test", result: "connection-result" }}
          />
          <p className="text-xs text-stone-500 dark:text-stone-400">
            {provider === "proxy"
              ? "The mind calls the model through this host's proxy: no key of yours is needed, and the host's key never reaches this browser."
              : "The key stays in this browser's storage. The mind calls the model directly from this tab."}
          </p>
          <BudgetFields />
          <PacingFields typed={draft?.pacing ?? { ok: true, pacing: DEFAULT_PACING }} />
          <QuietHoursFields initial={undefined} testIds="new-mind" />
          <OnboardingForecast forecast={draft ? draft.forecast : null} model={draft?.model ?? ""} />
          <PermissionsFields />
          {errors.length > 0 && (
            <ul ref={errorsRef} tabIndex={-1} role="alert" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="form-errors">
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
        </fieldset>
      </form>
    </section>
  );
}
