// The product's source files under a folder, as the check scripts walk them
// (check-layers.mjs, check-writers.mjs): every .ts, .tsx, .mjs and .js, at
// any depth; a folder that is not there has none.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function* sourceFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sourceFiles(p);
    else if (/\.(ts|tsx|mjs|js)$/.test(name)) yield p;
  }
}
