// The command line's usage texts and its answer to `--help`, in a module of
// plain JavaScript that imports nothing: bin/reverie.mjs loads it before
// anything else, so `reverie --help` and `reverie <verb> --help` answer as
// fast as Node starts, without checking or loading the bundle (and, for the
// server's verbs, without starting tsx). cli/reverie.ts answers from it too,
// so the binary and main() say the same. The default budget and the
// summaries' file are written out here; test/unit/cli/help.test.ts holds
// them to lib/context's DEFAULT_BUDGET and TIERS_FILE, and the server's
// verbs to lib/server/runner/main.ts.

const PATH_NOTE = `<path> is a Headlong trajectory folder (trajectory.jsonl, blobs/ beside it, child
trajectories in subfolders), a trajectory.jsonl, or such a folder packed as .zip or .tar.gz.`;

/**
 * Each verb: its one line in `reverie --help`, its usage line, what its
 * `--help` says under it, and the options that take a value (so that a value
 * spelled `--help`, a script's text say, is not read as asking for help).
 * The server's verbs list all their options too (`options`).
 */
export const VERBS = {
  check: {
    summary: "count what a trajectory folder, file or archive holds",
    usage: "reverie check <path> [--json]",
    text: `check counts what <path> holds: its steps by type, runs, forks and trajectories, and the
lines skipped as malformed, with why. --json prints
{"steps":N,"skipped":M,"byType":{...},"runs":R,"forks":F,"trajectories":T}.

${PATH_NOTE}`,
    values: [],
  },
  show: {
    summary: "print one step of a trajectory (with its blob's whole text: --full)",
    usage: "reverie show <path> <step-id|prefix> [--full]",
    text: `show prints one step of <path> as JSON, found by its id or a hex prefix of it (four
digits or more). --full puts the whole text of its blob in (a large output kept in
blobs/), in place of the cut one on the line.

${PATH_NOTE}`,
    values: [],
  },
  context: {
    summary: "print what the mind's model is shown of a trajectory",
    usage: "reverie context <path> [--budget TOKENS] [--json]",
    text: `context prints what the mind's model is shown of the (root) trajectory: its past as
sealed summaries where tiers.jsonl beside its trajectory.jsonl has them, as elisions
where not, then the newest steps verbatim, within TOKENS (default 16000).
--json prints {"messages":[{"role","content"}...],"tokens":N,"parts":[...]}.

${PATH_NOTE}`,
    values: ["--budget"],
  },
  sh: {
    summary: "run a script in the built-in sandbox over a workspace folder",
    usage: "reverie sh [--workspace DIR] [--traj FILE] [--silence S] [--wall S] -c SCRIPT",
    text: `sh runs SCRIPT in the built-in sandbox, with the mind's commands and limits and the
network off, over the folder DIR (default ./.reverie-sh/workspace, kept between calls)
as /workspace, and the trajectory FILE (default ./.reverie-sh/trajectory.jsonl).
The commands' appends (chat send, ...) go to FILE; the script and its output are not
recorded. It prints the script's stdout and stderr and exits with its status; a script
ended by a limit exits non-zero with a [reverie] note on stderr. --silence and --wall
set those two limits, in seconds.`,
    values: ["-c", "--workspace", "--traj", "--silence", "--wall"],
  },
  eval: {
    summary: "play a scenario with the real mind on a simulated clock, and score it",
    usage: "reverie eval <scenario.json> --model M [--provider P] [--base-url URL] [--api-key-env NAME] [--price IN,OUT] [--set path=value]... [--vary path=v1,v2,...] [--seed N] [--out DIR] [--json]",
    text: `eval plays a scenario (eval/README.md) with the real mind on a simulated clock: model
calls take their real time, every wait is skipped. P is openai-compatible (the default,
with --base-url), openai, anthropic, google or openrouter; the key is read from the
environment variable NAME. --price gives the model's price in USD per million tokens
when it is not in the built-in table. --set changes a setting of the scenario's mind
(pacing.cap_s=60); --vary plays once per value and shows the runs side by side.
--seed N makes the step ids (and the provider's sampling, where it takes a seed)
repeatable. --out DIR writes each run as an archive the app imports (DIR/*.tar.gz,
unpacked beside it, with results.json). Progress goes to stderr; the probes and
figures to stdout (--json: as JSON). Ctrl-C ends the play and scores what was played.`,
    values: ["--provider", "--model", "--base-url", "--api-key-env", "--price", "--set", "--vary", "--seed", "--out"],
  },
  runner: {
    summary: "host kept-alive minds while no tab holds them (PostgreSQL: DATABASE_URL)",
    usage: "reverie runner",
    text: `runner hosts the minds kept alive on this server while no tab holds them, one more
process beside \`npm start\` on the same PostgreSQL (DATABASE_URL; with the default
PGlite database the runner runs inside \`npm start\`). It reads the app's settings:
RUNNER_MAX_MINDS, RUNNER_LEASE_S, RUNNER_NETWORK_ALLOW, RUNNER_KEY_SECRET,
OUTBOUND_ALLOW and the proxy's LLM_PROXY_* (a mind on the host's proxy is under its
caps). Ctrl-C stops its minds and lets their leases go.`,
    values: [],
    // Its options, checked here: the verb itself runs in a process of its own that takes seconds to start.
    options: [],
  },
  minds: {
    summary: "list the minds the server keeps alive: where each lives, its spend today",
    usage: "reverie minds [--json] [--forget <mind>]",
    text: `minds lists the minds this server keeps alive: where each lives (a tab, the server,
or stopped), its lease epoch and what it spent on the server today, from DATABASE_URL
(or the default PGlite database). --json prints {"minds":[...]}.
--forget <mind> forgets that mind (its full id, as --json prints it): every row the
server keeps for it, its steps included, which nothing else can delete.`,
    values: ["--forget"],
    options: ["--json", "--forget"],
  },
};

const NAMES = Object.keys(VERBS);
const WIDTH = Math.max(...NAMES.map((n) => n.length));

export const USAGE = `usage: reverie <verb> [arguments]

${NAMES.map((n) => `  ${n.padEnd(WIDTH)}  ${VERBS[n].summary}`).join("\n")}

reverie <verb> --help (or reverie help <verb>) prints that verb's usage.`;

/** A verb's own usage: its line, then what it does. */
export function verbUsage(verb) {
  const v = VERBS[verb];
  return `usage: ${v.usage}\n\n${v.text}`;
}

export const isVerb = (word) => Object.prototype.hasOwnProperty.call(VERBS, word);

const HELP = new Set(["--help", "-h"]);

/** Whether a verb's arguments ask for its usage: `--help` or `-h` where an option may stand (not as an option's value). */
function asksHelp(verb, args) {
  const values = VERBS[verb].values;
  for (let i = 0; i < args.length; i++) {
    if (HELP.has(args[i])) return true;
    if (values.includes(args[i])) i++;
  }
  return false;
}

/**
 * What `reverie ARGV…` answers without running anything: the usage (exit 0),
 * or an unknown verb (exit 2); undefined when a verb is to run. Nothing at
 * all: the usage, exit 2.
 */
export function helpAnswer(argv) {
  const [first, ...rest] = argv;
  if (first === undefined) return { out: `${USAGE}\n`, code: 2 };
  if (first === "help" || HELP.has(first)) {
    const verb = rest[0];
    if (verb === undefined || HELP.has(verb)) return { out: `${USAGE}\n`, code: 0 };
    if (isVerb(verb)) return { out: `${verbUsage(verb)}\n`, code: 0 };
    return unknownVerb(verb);
  }
  if (!isVerb(first)) return unknownVerb(first);
  if (asksHelp(first, rest)) return { out: `${verbUsage(first)}\n`, code: 0 };
  const stray = strayArgument(VERBS[first], rest);
  if (stray !== undefined) return { err: `reverie ${first}: unknown argument ${stray}\n${verbUsage(first)}\n`, code: 2 };
  return undefined;
}

/** The first argument a server's verb does not take (an option's value passes with it); undefined for the other verbs, which check their own. */
function strayArgument(verb, args) {
  if (!verb.options) return undefined;
  for (let i = 0; i < args.length; i++) {
    if (!verb.options.includes(args[i])) return args[i];
    if (verb.values.includes(args[i])) i++;
  }
  return undefined;
}

function unknownVerb(word) {
  return { err: `reverie: unknown verb '${word}'; the verbs are ${NAMES.join(", ")}\n\n${USAGE}\n`, code: 2 };
}
