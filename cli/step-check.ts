// A step's value (a line's JSON, its Headlong variant restored) checked
// against the step schemas, and a tiers.jsonl line's against its own, by
// their compiled form (cli/step-check-gen.ts): what checkStep and
// readTierLines would say, without loading zod. Where the compiled check
// cannot tell (a kind that would not compile, a rejection zod's runtime parser
// must confirm, a check that throws, a valid step zod would give back changed)
// the answer is undefined, and the caller asks zod.
import compiled from "./step-checks";

const known = new Set(compiled.known);

function answer(check: ((value: unknown) => unknown) | undefined, definite: boolean, value: object): boolean | undefined {
  if (!check) return undefined;
  try {
    if (check(value) !== compiled.invalid) return true;
    return definite ? false : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the value is a valid step that checkStep would keep as it is (undefined: ask it). */
export function checkStepValue(value: object): boolean | undefined {
  const type = "type" in value ? value.type : undefined;
  if (typeof type === "string" && known.has(type)) {
    const check = Object.hasOwn(compiled.checks, type) ? compiled.checks[type] : undefined;
    const valid = answer(check, compiled.definite[type] === true, value);
    return valid && compiled.asWritten[type] !== true ? undefined : valid;
  }
  return answer(compiled.unknownStep, compiled.unknownDefinite, value);
}

/** Whether the value is a line of tiers.jsonl, as readTierLines would say (undefined: ask it). Its fields are read as they are; zod's parse would only add `cites: []` where there is none. */
export function checkTierValue(value: object): boolean | undefined {
  return answer(compiled.tierLine, compiled.tierLineDefinite, value);
}
