// The command line as a person runs it: bin/reverie.mjs in a child process,
// over its bundle (bin/cli-bundle.mjs), built once before the first run and
// then pinned (REVERIE_CLI_BUNDLE), so an edit to lib/ while the tests run
// cannot make one run rebuild and print that on stderr.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { ensureBundle } from "../../../bin/cli-bundle.mjs";

export const BIN = resolve("bin/reverie.mjs");

let bundle: Promise<URL> | undefined;

export interface Ran {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** The pinned bundle's entry module (built on the first call). */
export const bundleEntry = (): Promise<URL> => (bundle ??= ensureBundle());

/** Run `reverie ARGS…` in `cwd`; killed after `killAfterMs`. */
export async function runBin(args: string[], opts: { cwd?: string; killAfterMs?: number } = {}): Promise<Ran> {
  const entry = await bundleEntry();
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, REVERIE_CLI_BUNDLE: entry.href } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const killer = setTimeout(() => child.kill("SIGKILL"), opts.killAfterMs ?? 60_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(killer);
      done({ code, out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8"), ms: performance.now() - started });
    });
  });
}
