// `reverie sh -c SCRIPT`: one block in the built-in sandbox, as a mind's run
// would run it (its commands, its limits, the network off), over a workspace
// folder and a Headlong trajectory.jsonl on disk. For scripting, debugging and
// tests. The commands' appends (chat send, …) go to the file; the script
// itself is not recorded, since no model wrote it.
import { resolve } from "node:path";
import { alarmPort } from "../lib/mind/alarms/alarms";
import { Journal } from "../lib/mind/log/journal";
import { systemClock, systemIds } from "../lib/system/system";
import { trajReader } from "../lib/mind/log/mind-log";
import type { ShellScope } from "../lib/mind/ports";
import { justBashSandbox } from "../lib/shell/just-bash-sandbox";
import { WORKSPACE } from "../lib/shell/limits";
import { openPersistentFs } from "../lib/shell/persistent-fs";
import { DEFAULT_PERMISSIONS, SandboxLimits, type Permissions } from "../lib/trajectory/permissions";
import { folderStore } from "./folder-store";
import { openJsonlLog } from "./jsonl-log";
import { helpOrProblem, type Out } from "./out";

const DEFAULT_WORKSPACE = ".reverie-sh/workspace";
const DEFAULT_TRAJ = ".reverie-sh/trajectory.jsonl";
/** Who `chat send` writes as: the trajectory has no mind, so no mind's name. */
const SELF = "reverie";
/** What a block ended by a limit exits with when the script's own status was 0 (just-bash's code for limits). */
const LIMIT_EXIT = 126;
const INTERRUPTED_EXIT = 130;


interface ShArgs {
  script: string;
  workspace: string;
  traj: string;
  limits: Partial<Pick<SandboxLimits, "silence_s" | "wall_s">>;
}

const VALUE_FLAGS = ["--workspace", "--traj", "--silence", "--wall"] as const;

/** The arguments, or the problem with them (shown above the usage, exit 2). */
function parseArgs(argv: string[]): ShArgs | { problem: string } | "help" {
  let script: string | undefined;
  const values: Partial<Record<(typeof VALUE_FLAGS)[number], string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return "help";
    if (a === "-c" || (VALUE_FLAGS as readonly string[]).includes(a)) {
      const value = argv[++i];
      if (value === undefined) return { problem: `${a} needs a value` };
      if (a === "-c") {
        if (script !== undefined) return { problem: "-c is given twice" };
        script = value;
      } else values[a as (typeof VALUE_FLAGS)[number]] = value;
      continue;
    }
    if (a.startsWith("-")) return { problem: `unknown option ${a}` };
    return { problem: `unexpected argument '${a}' (the script goes after -c, quoted)` };
  }
  if (script === undefined) return { problem: "sh needs -c SCRIPT" };
  const limits: ShArgs["limits"] = {};
  for (const [flag, key] of [["--silence", "silence_s"], ["--wall", "wall_s"]] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const parsed = SandboxLimits.shape[key].safeParse(raw.trim() === "" ? Number.NaN : Number(raw));
    if (!parsed.success) return { problem: `${flag} takes seconds above 0 (at most ${SandboxLimits.shape[key].maxValue}), not '${raw}'` };
    limits[key] = parsed.data;
  }
  return { script, workspace: values["--workspace"] ?? DEFAULT_WORKSPACE, traj: values["--traj"] ?? DEFAULT_TRAJ, limits };
}

const clock = systemClock;
const ids = systemIds;

export async function sh(argv: string[], io: Out, usage: string): Promise<number> {
  const args = parseArgs(argv);
  if (args === "help" || "problem" in args) return helpOrProblem(args, io, usage);
  const permissions: Permissions = { ...DEFAULT_PERMISSIONS, limits: { ...DEFAULT_PERMISSIONS.limits, ...args.limits } };
  const maxBytes = permissions.limits.max_workspace_bytes;
  const { fs, flush } = await openPersistentFs(folderStore(resolve(args.workspace), { maxBytes }), { maxBytes });
  const journal = new Journal(openJsonlLog(args.traj, { ids, now: clock.now }), ids, clock);
  const run = await journal.openRun({ model: "none", launched_by: "reverie-sh" });
  // The scope shellmRun builds, minus nested runs: they need a model to think with.
  const scope: ShellScope = {
    traj: trajReader(journal.log),
    chat: {
      selfName: SELF,
      send: ({ to, content, replyTo }) => run.append({ type: "message", from: SELF, to, content, reply_to: replyTo, source: "chat" }),
    },
    shellm: { run: async () => ({ ok: false, error: "shellm: nested runs need a model; reverie sh has none" }) },
    alarms: alarmPort(run),
    depth: 0,
  };
  const session = justBashSandbox({ fs, flush, permissions, ids, clock }).open(scope);

  const interrupt = new AbortController();
  const onInt = () => interrupt.abort();
  process.once("SIGINT", onInt);
  try {
    const result = await session.exec(args.script, { env: {}, cwd: WORKSPACE, signal: interrupt.signal });
    io.out(result.stdout);
    io.err(result.stderr);
    // Close the run, so the trajectory does not show it as cut off.
    await run.append({ type: "final", content: `reverie sh: exit ${result.exit}${result.limit ? ` (${result.limit} limit)` : ""}` }).catch(() => undefined);
    if (interrupt.signal.aborted) {
      io.err("[reverie] interrupted\n");
      return INTERRUPTED_EXIT;
    }
    if (result.exit !== 0) return result.exit;
    return result.limit || result.timedOut ? LIMIT_EXIT : 0;
  } finally {
    process.off("SIGINT", onInt);
  }
}
