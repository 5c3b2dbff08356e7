// The pacing as typed into the new-mind form, under the same field names as
// Settings (base_s, cap_s, ticks_per_level). Pure.
import type { PacingConfig } from "@/lib/trajectory/schema";
import { pacingProblems } from "./pacing-words";

export const PACING_FIELDS = ["base_s", "cap_s", "ticks_per_level"] as const;

const amount = (f: FormData, k: string) => {
  const s = String(f.get(k) ?? "").trim();
  return s === "" ? undefined : Number(s);
};

/** The pacing typed, or a plain message per problem (an empty field is one). */
export function readPacingFields(f: FormData): { ok: true; pacing: PacingConfig } | { ok: false; problems: string[] } {
  const pacing = { base_s: amount(f, "base_s"), cap_s: amount(f, "cap_s"), ticks_per_level: amount(f, "ticks_per_level") };
  const problems = pacingProblems(pacing);
  return problems.length ? { ok: false, problems } : { ok: true, pacing: pacing as PacingConfig };
}
