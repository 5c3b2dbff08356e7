// Node imports a Markdown file as its text, as esbuild, Turbopack and the
// tests' vite do (`import text from "./x.md" with { type: "text" }`): the
// shipped defaults of a mind's self/ (lib/mind/self/defaults/*.md) are files,
// and Node 20 has no text imports. Whatever runs lib/ under tsx (the server
// runner, the CLI from its sources, the benchmarks) imports this first:
// `node --import ./bin/text-imports.mjs --import tsx …`, or
// `import "../bin/text-imports.mjs"` before tsx's tsImport.
import { readFileSync } from "node:fs";
import Module, { register } from "node:module";

const MD = /\.md(\?.*)?$/;

// CommonJS, which tsx compiles this package's .ts to (it has no "type": "module"): require("./x.md").
// tsImport asks for "x.md?namespace=…", which Node hands to the ".js" loader, so that one is wrapped too.
const js = Module._extensions[".js"];
const text = (module, filename) => {
  module.exports = readFileSync(filename.replace(/\?.*$/, ""), "utf8");
};
Module._extensions[".md"] = text;
Module._extensions[".js"] = function (module, filename) {
  return MD.test(filename) ? text(module, filename) : js.call(this, module, filename);
};

// ES modules (an .mts, an .mjs, tsImport's own loader): a load hook.
register("./text-imports-hooks.mjs", import.meta.url);
