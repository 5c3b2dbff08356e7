#!/usr/bin/env node
// `npx reverie <verb>`: the command line, sharing lib/ with the app. The
// usage (`--help`, `<verb> --help`, an unknown verb) is answered first, from
// cli/help.mjs alone, which imports nothing: a person asking what the verbs
// are waits for Node's start and no more. Everything else runs from a bundle
// of cli/ and lib/ that esbuild makes once (at `npm ci`, else on the first
// start, and again whenever a source changed): see bin/cli-bundle.mjs. Should
// bundling fail, it runs the sources under tsx instead (seconds a start).
// `context` runs from a script of its own beside the bundle (cli/context-main.ts).
// REVERIE_CLI_BUNDLE names a bundle's entry to run as it is, unchecked: the
// tests and the benchmark build one first, so that an edit while they run
// cannot make a run rebuild.
import { helpAnswer } from "../cli/help.mjs";

const argv = process.argv.slice(2);
// A reader that stops early (`reverie context … | head`) is not an error.
process.stdout.on("error", (e) => {
  if (e.code !== "EPIPE") throw e;
  process.exit(process.exitCode ?? 0);
});
const answer = helpAnswer(argv);
if (answer) {
  if ("out" in answer) process.stdout.write(answer.out);
  else process.stderr.write(answer.err);
  process.exitCode = answer.code;
} else if (argv[0] === "runner" || argv[0] === "minds") {
  // The server's verbs speak to its database: run from the sources under tsx, with the react-server condition (lib/server's `server-only` loads outside Next)
  // and bin/text-imports.mjs first (lib/mind's default texts are .md files; Node has no text imports).
  const { spawnSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const main = fileURLToPath(new URL("../lib/server/runner/main.ts", import.meta.url));
  const child = spawnSync(process.execPath, ["--conditions=react-server", "--import", fileURLToPath(new URL("./text-imports.mjs", import.meta.url)), "--import", import.meta.resolve("tsx"), main, ...argv], { stdio: "inherit" });
  process.exitCode = child.status ?? 1;
} else if (process.env.REVERIE_FROM_SOURCES) {
  const { main } = await import("../cli/reverie.ts");
  process.exitCode = await main(argv);
} else {
  const { ensureBundle, freshBundle, runContextScript } = await import("./cli-bundle.mjs");
  let entry = process.env.REVERIE_CLI_BUNDLE ? new URL(process.env.REVERIE_CLI_BUNDLE) : freshBundle();
  if (!entry) {
    try {
      entry = await ensureBundle({ onBuild: () => process.stderr.write("reverie: building the CLI once…\n") });
    } catch (e) {
      process.stderr.write(`reverie: could not bundle the CLI (${e instanceof Error ? e.message : e}); running it from the sources\n`);
    }
  }
  if (entry) {
    // `context` on a file or folder on disk runs from its own script, from V8's code cache; all else, and anything it leaves, from the bundle.
    const std = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };
    const code = argv[0] === "context" ? await runContextScript(entry, argv, std) : undefined;
    if (code !== undefined) process.exitCode = code;
    else {
      const { main } = await import(entry.href);
      process.exitCode = await main(argv);
    }
  } else {
    // tsx's loader in a child: its one-off tsImport cannot follow the verbs' relative dynamic imports.
    const { spawnSync } = await import("node:child_process");
    const { fileURLToPath } = await import("node:url");
    const child = spawnSync(process.execPath, ["--import", fileURLToPath(new URL("./text-imports.mjs", import.meta.url)), "--import", import.meta.resolve("tsx"), fileURLToPath(import.meta.url), ...argv], { stdio: "inherit", env: { ...process.env, REVERIE_FROM_SOURCES: "1" } });
    process.exitCode = child.status ?? 1;
  }
}
