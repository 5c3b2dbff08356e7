// `reverie --help` and each `reverie <verb> --help`: the whole texts, as the
// binary prints them (answered by cli/help.mjs before the bundle or tsx load)
// and as main() prints them; the exit codes; and the figures and names the
// texts state, held to the code that has them.
import { describe, expect, it } from "vitest";
import { helpAnswer, USAGE, verbUsage } from "@/cli/help.mjs";
import { main } from "@/cli/reverie";
import { DEFAULT_BUDGET } from "@/lib/context/build";
import { TIERS_FILE } from "@/lib/context/rollups";
import { RUNNER_USAGE } from "@/lib/server/runner/main";
import { runBin } from "../helpers/cli-bin";

const PATH_NOTE = `<path> is a Headlong trajectory folder (trajectory.jsonl, blobs/ beside it, child
trajectories in subfolders), a trajectory.jsonl, or such a folder packed as .zip or .tar.gz.
`;

const TOP = `usage: reverie <verb> [arguments]

  check    count what a trajectory folder, file or archive holds
  show     print one step of a trajectory (with its blob's whole text: --full)
  context  print what the mind's model is shown of a trajectory
  sh       run a script in the built-in sandbox over a workspace folder
  eval     play a scenario with the real mind on a simulated clock, and score it
  runner   host kept-alive minds while no tab holds them (PostgreSQL: DATABASE_URL)
  minds    list the minds the server keeps alive: where each lives, its spend today

reverie <verb> --help (or reverie help <verb>) prints that verb's usage.
`;

const VERBS = {
  check: `usage: reverie check <path> [--json]

check counts what <path> holds: its steps by type, runs, forks and trajectories, and the
lines skipped as malformed, with why. --json prints
{"steps":N,"skipped":M,"byType":{...},"runs":R,"forks":F,"trajectories":T}.

` + PATH_NOTE,
  show: `usage: reverie show <path> <step-id|prefix> [--full]

show prints one step of <path> as JSON, found by its id or a hex prefix of it (four
digits or more). --full puts the whole text of its blob in (a large output kept in
blobs/), in place of the cut one on the line.

` + PATH_NOTE,
  context: `usage: reverie context <path> [--budget TOKENS] [--json]

context prints what the mind's model is shown of the (root) trajectory: its past as
sealed summaries where tiers.jsonl beside its trajectory.jsonl has them, as elisions
where not, then the newest steps verbatim, within TOKENS (default 16000).
--json prints {"messages":[{"role","content"}...],"tokens":N,"parts":[...]}.

` + PATH_NOTE,
  sh: `usage: reverie sh [--workspace DIR] [--traj FILE] [--silence S] [--wall S] -c SCRIPT

sh runs SCRIPT in the built-in sandbox, with the mind's commands and limits and the
network off, over the folder DIR (default ./.reverie-sh/workspace, kept between calls)
as /workspace, and the trajectory FILE (default ./.reverie-sh/trajectory.jsonl).
The commands' appends (chat send, ...) go to FILE; the script and its output are not
recorded. It prints the script's stdout and stderr and exits with its status; a script
ended by a limit exits non-zero with a [reverie] note on stderr. --silence and --wall
set those two limits, in seconds.
`,
  eval: `usage: reverie eval <scenario.json> --model M [--provider P] [--base-url URL] [--api-key-env NAME] [--price IN,OUT] [--set path=value]... [--vary path=v1,v2,...] [--seed N] [--out DIR] [--json]

eval plays a scenario (eval/README.md) with the real mind on a simulated clock: model
calls take their real time, every wait is skipped. P is openai-compatible (the default,
with --base-url), openai, anthropic, google or openrouter; the key is read from the
environment variable NAME. --price gives the model's price in USD per million tokens
when it is not in the built-in table. --set changes a setting of the scenario's mind
(pacing.cap_s=60); --vary plays once per value and shows the runs side by side.
--seed N makes the step ids (and the provider's sampling, where it takes a seed)
repeatable. --out DIR writes each run as an archive the app imports (DIR/*.tar.gz,
unpacked beside it, with results.json). Progress goes to stderr; the probes and
figures to stdout (--json: as JSON). Ctrl-C ends the play and scores what was played.
`,
  runner: `usage: reverie runner

runner hosts the minds kept alive on this server while no tab holds them, one more
process beside \`npm start\` on the same PostgreSQL (DATABASE_URL; with the default
PGlite database the runner runs inside \`npm start\`). It reads the app's settings:
RUNNER_MAX_MINDS, RUNNER_LEASE_S, RUNNER_NETWORK_ALLOW, RUNNER_KEY_SECRET,
OUTBOUND_ALLOW and the proxy's LLM_PROXY_* (a mind on the host's proxy is under its
caps). Ctrl-C stops its minds and lets their leases go.
`,
  minds: `usage: reverie minds [--json] [--forget <mind>]

minds lists the minds this server keeps alive: where each lives (a tab, the server,
or stopped), its lease epoch and what it spent on the server today, from DATABASE_URL
(or the default PGlite database). --json prints {"minds":[...]}.
--forget <mind> forgets that mind (its full id, as --json prints it): every row the
server keeps for it, its steps included, which nothing else can delete.
`,
};

async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

describe("the usage", () => {
  it("reverie --help lists every verb, one line each, and exits 0 (the binary, main(), -h and help alike)", async () => {
    for (const flag of ["--help", "-h", "help"]) {
      expect(await runBin([flag])).toMatchObject({ code: 0, out: TOP, err: "" });
      expect(await run(flag)).toEqual({ code: 0, out: TOP, err: "" });
    }
  });

  it("reverie with no verb prints the usage and exits 2", async () => {
    expect(await runBin([])).toMatchObject({ code: 2, out: TOP, err: "" });
  });

  it.each(Object.keys(VERBS) as (keyof typeof VERBS)[])("reverie %s --help prints that verb's own usage and exits 0, from the binary without starting the verb", async (verb) => {
    const want = { code: 0, out: VERBS[verb], err: "" };
    expect(await runBin([verb, "--help"])).toMatchObject(want);
    expect(await runBin([verb, "-h"])).toMatchObject(want);
    expect(await runBin(["help", verb])).toMatchObject(want);
    expect(await run(verb, "--help")).toEqual(want);
  });

  it("the module's texts are the ones above", () => {
    expect(`${USAGE}\n`).toBe(TOP);
    for (const verb of Object.keys(VERBS) as (keyof typeof VERBS)[]) expect(`${verbUsage(verb)}\n`).toBe(VERBS[verb]);
  });
});

describe("what is and is not a request for help", () => {
  it("--help after other arguments still asks for the verb's usage", async () => {
    expect(await run("context", "some/trajectory.jsonl", "--json", "--help")).toEqual({ code: 0, out: VERBS.context, err: "" });
    expect(await runBin(["minds", "--json", "-h"])).toMatchObject({ code: 0, out: VERBS.minds, err: "" });
  });

  it("--help as an option's value is that value: a script for sh, a budget for context", async () => {
    expect(helpAnswer(["sh", "-c", "--help"])).toBeUndefined();
    expect(helpAnswer(["sh", "--workspace", "-h", "-c", "true"])).toBeUndefined();
    expect(helpAnswer(["eval", "x.json", "--model", "--help"])).toBeUndefined();
    expect(await run("context", "x.jsonl", "--budget", "--help")).toEqual({ code: 2, out: "", err: `reverie: --budget takes a whole number of tokens above 0, not '--help'\n${VERBS.context}` });
  });

  it("an unknown verb exits 2 and names the verbs, --help or not", async () => {
    const err = `reverie: unknown verb 'frob'; the verbs are check, show, context, sh, eval, runner, minds\n\n${TOP}`;
    for (const argv of [["frob"], ["frob", "--help"], ["help", "frob"]]) {
      expect(await runBin(argv)).toMatchObject({ code: 2, out: "", err });
      expect(await run(...argv)).toEqual({ code: 2, out: "", err });
    }
  });

  it("the server's verbs refuse what they do not take at once, exit 2, without starting the server's code", async () => {
    expect(await runBin(["minds", "--jsn"])).toMatchObject({ code: 2, out: "", err: `reverie minds: unknown argument --jsn\n${VERBS.minds}` });
    expect(await runBin(["runner", "--json"])).toMatchObject({ code: 2, out: "", err: `reverie runner: unknown argument --json\n${VERBS.runner}` });
    // --forget takes the mind's id as its value: the id is no stray argument, and neither is a value spelled --help.
    expect(helpAnswer(["minds", "--forget", "6f1c2e4a-0000-4000-8000-000000000000"])).toBeUndefined();
    expect(helpAnswer(["minds", "--json", "--forget", "--help"])).toBeUndefined();
    expect(helpAnswer(["minds", "--forget", "x", "--jsn"])).toEqual({ code: 2, err: `reverie minds: unknown argument --jsn\n${VERBS.minds}` });
  });
});

describe("what the texts state is the code's", () => {
  it("context's default budget and the summaries' file", () => {
    expect(VERBS.context).toContain(`within TOKENS (default ${DEFAULT_BUDGET}).`);
    expect(VERBS.context).toContain(`sealed summaries where ${TIERS_FILE} beside its trajectory.jsonl`);
  });

  it("runner and minds say what lib/server/runner/main.ts says of them: their usage lines and the settings it reads", () => {
    expect(RUNNER_USAGE).toMatch(/^ {2}reverie runner {2,}/m);
    expect(RUNNER_USAGE).toMatch(/^ {2}reverie minds \[--json\] {2,}/m);
    expect(VERBS.runner.startsWith("usage: reverie runner\n")).toBe(true);
    expect(RUNNER_USAGE).toMatch(/^ {2}reverie minds --forget <mind>\n {20,}forget a mind/m);
    expect(VERBS.minds.startsWith("usage: reverie minds [--json] [--forget <mind>]\n")).toBe(true);
    const settings = RUNNER_USAGE.match(/[A-Z][A-Z0-9]*(?:_[A-Z0-9]*)+\*?/g) ?? [];
    expect(settings).toEqual(["DATABASE_URL", "RUNNER_MAX_MINDS", "RUNNER_LEASE_S", "RUNNER_NETWORK_ALLOW", "RUNNER_KEY_SECRET", "OUTBOUND_ALLOW", "LLM_PROXY_*"]);
    for (const s of settings) expect(VERBS.runner).toContain(s);
  });
});
