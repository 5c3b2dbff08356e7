// A zod schema compiled (z.compile) into one generated function once it has
// been used COMPILE_AFTER times. Reading thousands of lines at a cold start (a
// command line run, a mind's first load) the runtime parser's many small calls
// run unoptimized; the compiled one parses a 10,000-step log in about a fifth
// of the time. Compiling costs 0.2–4 ms a schema, cold: a page that parses a
// handful of values of a kind never pays it. A value the fast path rejects
// goes to the runtime parser, so errors read as ever; a schema zod cannot
// compile, or a page that refuses `new Function`, keeps the runtime parser.
import * as z from "zod";

export const COMPILE_AFTER = 64;

export function compiledOnUse<T extends z.ZodType>(schema: T): () => T {
  let uses = 0;
  let compiled: T | undefined;
  return () => compiled ?? (++uses < COMPILE_AFTER ? schema : (compiled = z.compile(schema)));
}

/**
 * Whether parsing with `schema` gives back what it was given, field for field:
 * no defaults, catches, transforms or pipes, no check that rewrites (trim …),
 * and objects that keep unknown keys (loose). For such a schema a valid value
 * can be its own output, validated (z.validate) without building a copy.
 */
export function parsesAsWritten(schema: z.core.$ZodType): boolean {
  const def = schema._zod.def;
  if (def.checks?.some((c) => c._zod.def.check === "overwrite")) return false;
  if (def.type === "string" || def.type === "number" || def.type === "boolean" || def.type === "literal" || def.type === "enum" || def.type === "unknown") return true;
  if (schema instanceof z.core.$ZodOptional || schema instanceof z.core.$ZodNullable) return parsesAsWritten(schema._zod.def.innerType);
  if (schema instanceof z.core.$ZodArray) return parsesAsWritten(schema._zod.def.element);
  // A union (a discriminated one too) gives back what the option that matched gives back.
  if (schema instanceof z.core.$ZodUnion) return schema._zod.def.options.every(parsesAsWritten);
  if (schema instanceof z.core.$ZodObject) {
    const { catchall, shape } = schema._zod.def;
    return catchall?._zod.def.type === "unknown" && Object.values(shape).every(parsesAsWritten);
  }
  return false;
}
