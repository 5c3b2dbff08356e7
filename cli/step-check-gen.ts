// The schemas `reverie context` checks lines against (every step kind, a step
// of an unknown kind, a line of tiers.jsonl), compiled to plain JavaScript:
// zod's own code generator (compileFn, the fast path z.compile installs), run
// when the command line is bundled, its code and constants written out as a
// module. Loading zod and building the schemas took a fifth of a cold
// `reverie context`; the compiled checks load in a fraction of a millisecond
// and say what zod says (they are zod's). cli/step-check.ts wraps them.
//
// compileFn hands its constants (the schemas' regexes, sets, refinements,
// zod's own helpers) to `new Function` rather than back to its caller, so they
// are caught there. Each is written out as its source: a refinement as its
// function's text, which must stand alone (it can name globals such as Date,
// never the module it came from: cli/step-check.ts treats a check that throws
// as unable to tell, and test/unit/cli/step-check.test.ts runs every kind's);
// one of zod's helpers by its name in zod's util module, which the body is
// handed (`zodUtil`) and the bundle imports alone.
import { compileFn, util } from "zod/v4/core";
import type * as z from "zod";
import { TierLine } from "../lib/context/rollups";
import { parsesAsWritten } from "../lib/trajectory/compiled";
import { KNOWN_KINDS, UnknownStep } from "../lib/trajectory/schema";

/** What the body built by checksBody returns. */
export interface CompiledChecks {
  /** By kind: `invalid` when the value is not a step of that kind, else anything (`true`, or what zod would make of it). */
  checks: Record<string, (value: unknown) => unknown>;
  /** Kinds whose parse gives back what it is given (checkStep keeps a valid value as it is); another kind's step is zod's parse of it. */
  asWritten: Record<string, boolean>;
  /** Kinds whose `invalid` zod's runtime parser would agree with without asking it (compileFn's `definite`). */
  definite: Record<string, boolean>;
  /** Every kind the schemas know: one missing from `checks` could not be compiled, and zod checks it. */
  known: string[];
  unknownStep?: (value: unknown) => unknown;
  unknownDefinite: boolean;
  tierLine?: (value: unknown) => unknown;
  tierLineDefinite: boolean;
  invalid: symbol;
}

interface Caught {
  names: string[];
  code: string;
  values: unknown[];
}

/** compileFn's code and constants for a schema (assert only: it builds no output), or why it could not be had. */
function compiled(schema: z.core.$ZodType): { caught: Caught; definite: boolean } | { why: string } {
  const RealFunction = Function;
  let caught: Caught | undefined;
  const g: { Function: unknown } = globalThis;
  g.Function = function (...args: string[]) {
    const code = args.at(-1) ?? "";
    const names = args.slice(0, -1);
    const factory = new RealFunction(...names, code);
    const seen: Caught = { names, code, values: [] };
    caught = seen;
    return (...values: unknown[]) => {
      seen.values = values;
      return factory(...values);
    };
  };
  try {
    const fn = compileFn(schema, { assertOnly: true });
    if (!caught || caught.values.length !== caught.names.length) return { why: "no code was generated" };
    return { caught, definite: fn.definite !== false };
  } catch (e) {
    return { why: e instanceof Error ? e.message : String(e) };
  } finally {
    g.Function = RealFunction;
  }
}

/** zod's helpers by value, for the constants that are one. */
const UTIL_NAMES = new Map<unknown, string>(Object.entries(util).filter(([, v]) => typeof v === "function").map(([name, v]) => [v, name]));

/** A constant as JavaScript source (zod's helpers it names are added to `helpers`), or undefined when it cannot be written out. */
function constantSource(value: unknown, invalid: symbol, helpers: Set<string>): string | undefined {
  if (value === invalid) return "INVALID";
  const helper = UTIL_NAMES.get(value);
  if (helper !== undefined) {
    helpers.add(helper);
    return `zodUtil.${helper}`;
  }
  if (value instanceof RegExp) return `new RegExp(${JSON.stringify(value.source)}, ${JSON.stringify(value.flags)})`;
  if (value instanceof Set) {
    const items = [...value];
    return items.every((v) => ["string", "number", "boolean"].includes(typeof v) || v === null) ? `new Set(${JSON.stringify(items)})` : undefined;
  }
  if (typeof value === "function") {
    // zod's stand-in for an async refinement: it only throws, and only when a check returned a promise.
    if (value.name === "throwAsync") return `(() => { throw new Error("an async refinement"); })`;
    const text = String(value);
    // A default's getter (`() => schema._zod.def.defaultValue`) names the schema: written out as the value it gives, a fresh copy each call as the getter's.
    if (value.length === 0 && text.includes("defaultValue")) {
      try {
        const json = JSON.stringify(value());
        if (json !== undefined) return `(() => (${json}))`;
      } catch {
        return undefined;
      }
    }
    try {
      new Function(`return (${text});`);
    } catch {
      return undefined;
    }
    return `(${text})`;
  }
  if (value === undefined || value === null || ["string", "number", "boolean"].includes(typeof value)) return value === undefined ? "undefined" : JSON.stringify(value);
  return undefined;
}

/**
 * One check as an expression (a function of the value), or undefined: its
 * code in a function made the first time the check is called. The code is
 * written out as code, not as a string for `new Function`: the command line's
 * context runs from V8's code cache (bin/cli-bundle.mjs), which holds the
 * checks a run compiled, so the next run compiles none of them; and a
 * function that is never called is only scanned once for its end.
 */
function checkSource(schema: z.core.$ZodType, invalid: symbol, helpers: Set<string>): { source: string; definite: boolean } | undefined {
  const c = compiled(schema);
  if ("why" in c) return undefined;
  const args: string[] = [];
  const named = new Set<string>();
  for (const v of c.caught.values.slice(1)) {
    const s = constantSource(v, invalid, named);
    if (s === undefined) return undefined;
    args.push(s);
  }
  for (const h of named) helpers.add(h);
  // The first name is compileFn's INVALID, the module's one symbol.
  const names = c.caught.names.slice(1);
  const code = `return ((${names.join(", ")}) => {\n${c.caught.code}\n})(${args.join(", ")});`;
  return { source: `lazy(() => {\n${code}\n})`, definite: c.definite };
}

/**
 * The body of a function of `zodUtil` (zod's util module, or an object of the
 * helpers named) that returns CompiledChecks: `new Function("zodUtil", body)(util)`
 * runs it; the bundle wraps it as a module that imports the helpers alone.
 */
export function checksBody(): { body: string; helpers: string[] } {
  const invalid = Symbol.for("zod.compile.invalid");
  const helpers = new Set<string>();
  const lines = [
    '"use strict";',
    'const INVALID = Symbol.for("zod.compile.invalid");',
    "const lazy = (make) => { let check; return (value) => (check ??= make())(value); };",
    "const checks = {};",
    "const definite = {};",
    "const asWritten = {};",
  ];
  for (const [kind, schema] of Object.entries(KNOWN_KINDS)) {
    const c = checkSource(schema, invalid, helpers);
    if (!c) continue;
    const k = JSON.stringify(kind);
    lines.push(`checks[${k}] = ${c.source};`, `definite[${k}] = ${c.definite};`, `asWritten[${k}] = ${parsesAsWritten(schema)};`);
  }
  const unknown = checkSource(UnknownStep, invalid, helpers);
  const tier = checkSource(TierLine, invalid, helpers);
  lines.push(
    `const known = ${JSON.stringify(Object.keys(KNOWN_KINDS))};`,
    `const unknownStep = ${unknown?.source ?? "undefined"};`,
    `const tierLine = ${tier?.source ?? "undefined"};`,
    `return { checks, definite, asWritten, known, unknownStep, unknownDefinite: ${unknown?.definite ?? false}, tierLine, tierLineDefinite: ${tier?.definite ?? false}, invalid: INVALID };`,
  );
  return { body: lines.join("\n"), helpers: [...helpers] };
}
