// The module hooks bin/text-imports.mjs registers: a .md file loads as a module whose default export is its text.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !new URL(url).pathname.endsWith(".md")) return nextLoad(url, context);
  const text = readFileSync(fileURLToPath(url), "utf8");
  return { format: "module", source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
