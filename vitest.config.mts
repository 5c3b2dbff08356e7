import { readFileSync } from "node:fs";
import { defineConfig, type Plugin } from "vitest/config";

/** `import text from "./x.md" with { type: "text" }`: the file's text as a string, as esbuild and Turbopack import it (vite has no text imports of its own). */
const textImports: Plugin = {
  name: "reverie-text-imports",
  enforce: "pre",
  load(id) {
    const file = id.split("?")[0] ?? id;
    return file.endsWith(".md") ? `export default ${JSON.stringify(readFileSync(file, "utf8"))};` : undefined;
  },
};

export default defineConfig({
  plugins: [textImports],
  resolve: {
    alias: {
      "@": new URL("./", import.meta.url).pathname.replace(/\/$/, ""),
      // lib/server starts with import "server-only", which throws outside React's server build; tests are server code too.
      "server-only": new URL("./node_modules/server-only/empty.js", import.meta.url).pathname,
    },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/unit/**/*.test.tsx"],
          environment: "node",
          setupFiles: ["test/unit/setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
