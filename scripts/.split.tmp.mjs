// Re-point named imports: for every file importing OLD (a repo-relative module path without extension),
// names listed in MAP go to their new module. usage: node split.mjs OLD MAPJSON  (MAPJSON: {"name": "lib/x/y", ...}; names not listed stay)
import ts from "typescript";
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
const ROOT = process.cwd();
const [oldMod, mapFile] = process.argv.slice(2);
const map = JSON.parse(readFileSync(mapFile, "utf8"));
const files = execSync("git ls-files -co --exclude-standard", { encoding: "utf8" }).split("\n").filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f) && !f.startsWith("node_modules/"));
const EXTS = ["", ".ts", ".tsx", ".mts", ".mjs"];
const target = (file, spec) => {
  const base = spec.startsWith("@/") ? resolve(ROOT, spec.slice(2)) : spec.startsWith(".") ? resolve(dirname(resolve(ROOT, file)), spec) : null;
  if (!base) return null;
  for (const e of EXTS) if (existsSync(base + e) && !existsSync(base + e + "/")) return relative(ROOT, base + e).replace(/\.(ts|tsx|mts|mjs)$/, "");
  return relative(ROOT, base);
};
const specFor = (file, mod, style) => {
  if (style.startsWith("@/")) return "@/" + mod;
  let s = relative(dirname(resolve(ROOT, file)), resolve(ROOT, mod));
  if (!s.startsWith(".")) s = "./" + s;
  return s + (style.endsWith(".ts") ? ".ts" : style.endsWith(".mjs") ? ".mjs" : "");
};
let changed = 0;
for (const file of files) {
  const text = readFileSync(resolve(ROOT, file), "utf8");
  if (!text.includes(oldMod.split("/").pop())) continue;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edits = [];
  for (const st of sf.statements) {
    const isImp = ts.isImportDeclaration(st), isExp = ts.isExportDeclaration(st);
    if (!isImp && !isExp) continue;
    const specNode = st.moduleSpecifier; if (!specNode || !ts.isStringLiteral(specNode)) continue;
    const spec = specNode.text;
    if (target(file, spec) !== oldMod) continue;
    let elements, typeOnly, defaultName = null, nsImport = null;
    if (isImp) {
      const c = st.importClause; if (!c) continue;
      typeOnly = c.isTypeOnly; defaultName = c.name?.text ?? null;
      if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) { console.error(`${file}: namespace import of ${oldMod}: fix by hand`); continue; }
      elements = c.namedBindings?.elements ?? [];
    } else {
      typeOnly = st.isTypeOnly;
      if (!st.exportClause) { console.error(`${file}: export * from ${oldMod}: fix by hand`); continue; }
      elements = st.exportClause.elements;
    }
    const groups = new Map();
    for (const el of elements) {
      const name = (el.propertyName ?? el.name).text;
      const mod = map[name] ?? oldMod;
      if (!groups.has(mod)) groups.set(mod, []);
      groups.get(mod).push(el.getText(sf));
    }
    if (groups.size === 1 && groups.has(oldMod)) continue;
    const kw = isImp ? "import" : "export";
    const out = [];
    for (const [mod, names] of groups) {
      const d = mod === oldMod && defaultName ? `${defaultName}, ` : "";
      out.push(`${kw} ${typeOnly ? "type " : ""}${d}{ ${names.join(", ")} } from "${specFor(file, mod, spec)}";`);
    }
    if (defaultName && !groups.has(oldMod)) out.unshift(`import ${defaultName} from "${spec}";`);
    edits.push({ start: st.getStart(sf), end: st.getEnd(), text: out.join("\n") });
  }
  if (!edits.length) continue;
  let t = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) t = t.slice(0, e.start) + e.text + t.slice(e.end);
  writeFileSync(resolve(ROOT, file), t);
  changed++;
}
console.log(`re-pointed imports in ${changed} files`);
