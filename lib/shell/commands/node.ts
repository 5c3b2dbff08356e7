// node <args…>   npm <args…>   npx <args…>
// Real Node, npm and npx, run in the page's WebContainer over the same
// workspace bash sees: the files changed since the last call are copied in
// first, and what the process changed is copied back after. When the mind
// has no WebContainer (switched off, booting, or unavailable here) they say
// why and exit 127, like a missing command; the built-in shell is unaffected.
import type { ActivityPort, RuntimeStatus, SpawnRequest, SpawnResult } from "../ports";
import { delivered } from "../webcontainer/results";
import { syncFor } from "../webcontainer/sync";
import { defineAgentCommand, fail, type AgentCommand, type CommandIO, type CommandResult } from "./command";

/**
 * A RuntimePort, which may also report while its process prints (the
 * worker's RuntimeBridge does): a long `npm install` that prints is alive
 * for the block's watchdog. Any RuntimePort fits as it is.
 */
export interface NodeRuntime {
  status(): RuntimeStatus;
  spawn(req: SpawnRequest, signal: AbortSignal, onActivity?: () => void): Promise<SpawnResult>;
}

export interface NodePorts {
  runtime: NodeRuntime;
  activity: ActivityPort;
}

const NOT_FOUND = 127;

/** Why there is no real Node, as the end of a sentence. */
export function whyNoNode(status: Exclude<RuntimeStatus, { state: "ready" }>): string {
  if (status.state === "off") return "WebContainer is off for this mind; its human can switch it on in Settings";
  if (status.state === "booting") return "the WebContainer is still booting; try again in a few seconds";
  return status.reason;
}

// The shell's own variables describe the shell (its PATH, HOME=/workspace, PWD): the container has its own.
const SHELL_ONLY = /^(PATH|HOME|PWD|OLDPWD|SHLVL|SHELL|IFS|OPTIND|OPTARG|PPID|UID|EUID|HOSTNAME|PS[1-4]|BASH.*|_|FINAL)$/;

function spawnEnv(env: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...env].filter(([k]) => !SHELL_ONLY.test(k)));
}

async function writeBack(io: CommandIO, files: SpawnResult["files"]): Promise<string> {
  let problems = "";
  for (const f of files) {
    try {
      if (f.data === null) await io.fs.rm(f.path, { force: true, recursive: true });
      else {
        await io.fs.mkdir(f.path.slice(0, f.path.lastIndexOf("/")) || "/", { recursive: true });
        await io.fs.writeFile(f.path, f.data);
      }
    } catch (e) {
      problems += `[reverie] could not copy ${f.path} back: ${e instanceof Error ? e.message : String(e)}\n`;
    }
  }
  return problems;
}

async function runInContainer(name: string, args: string[], io: CommandIO, { runtime, activity }: NodePorts): Promise<CommandResult> {
  const status = runtime.status();
  if (status.state !== "ready") {
    return fail(`${name}: real Node is not available here: ${whyNoNode(status)}. The built-in shell (bash, grep, sed, awk, jq …) still works.`, NOT_FOUND);
  }
  const sync = syncFor(runtime);
  const batch = await sync.collect(io.fs);
  const req = { command: name, args, cwd: io.cwd, env: spawnEnv(io.env), files: batch.files };
  const result = await runtime.spawn(req, io.signal, () => activity.beacon());
  if (delivered(result)) sync.commit(batch);
  const problems = await writeBack(io, result.files);
  sync.record(result.files);
  const ended = result.ended ? `[reverie] ${name}: ${result.ended}\n` : "";
  return { stdout: result.output, stderr: problems + ended, exitCode: result.exit };
}

function nodeCommand(name: string, summary: string, usage: string): AgentCommand<NodePorts> {
  return defineAgentCommand<NodePorts>({ name, summary, usage, nativeHelp: true, run: (args, io, ports) => runInContainer(name, args, io, ports) });
}

const WHERE =
  "Runs in a WebContainer on the mind's page, when its human switched it on and the browser allows it.\n" +
  "The workspace is the same as bash's: files under /workspace go in before the call and come back after;\n" +
  "node_modules and .git stay in the container. Output is stdout and stderr together. No stdin.\n" +
  "The network is the mind's, as for curl: off, or only the URL prefixes its human allowed\n" +
  "(npm works offline unless its registry is under one of them).";

export const node = nodeCommand("node", "node <script|-e code> [args]   real Node.js (WebContainer, when on)", `usage: node <script.js | -e code> [args…]\n${WHERE}`);
export const npm = nodeCommand("npm", "npm <command> [args]   npm in the same WebContainer (npm install, npm test …)", `usage: npm <command> [args…]\n${WHERE}`);
export const npx = nodeCommand("npx", "npx <package> [args]   run a package's binary in the same WebContainer", `usage: npx <package> [args…]\n${WHERE}`);
