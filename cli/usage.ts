// The usage text, in a module that imports nothing, so `reverie --help` loads
// nothing else: the verbs (and the tokenizer, zod, the shell) are loaded only
// by the verb that runs. The default budget and the summaries' file name are
// written out here; test/unit/cli.test.ts checks them against
// lib/context's DEFAULT_BUDGET and TIERS_FILE.

export const CONTEXT_USAGE_LINE = "reverie context <path> [--budget TOKENS] [--json]";
export const SH_USAGE_LINE = "reverie sh [--workspace DIR] [--traj FILE] [--silence S] [--wall S] -c SCRIPT";

export const EVAL_USAGE_LINE = "reverie eval <scenario.json> --model M [--provider P] [--base-url URL] [--api-key-env NAME] [--price IN,OUT] [--set path=value]... [--vary path=v1,v2,...] [--seed N] [--out DIR] [--json]";

export const EVAL_HELP = `eval plays a scenario (eval/README.md) with the real mind on a simulated clock: model
calls take their real time, every wait is skipped. P is openai-compatible (the default,
with --base-url), openai, anthropic, google or openrouter; the key is read from the
environment variable NAME. --price gives the model's price in USD per million tokens
when it is not in the built-in table. --set changes a setting of the scenario's mind
(pacing.cap_s=60); --vary plays once per value and shows the runs side by side.
--seed N makes the step ids (and the provider's sampling, where it takes a seed)
repeatable. --out DIR writes each run as an archive the app imports (DIR/*.tar.gz,
unpacked beside it, with results.json). Progress goes to stderr; the probes and
figures to stdout (--json: as JSON). Ctrl-C ends the play and scores what was played.`;

export const CONTEXT_HELP = `context prints what the mind's model is shown of the (root) trajectory: its past as
sealed summaries where tiers.jsonl beside its trajectory.jsonl has them, as elisions
where not, then the newest steps verbatim, within TOKENS (default 16000).
--json prints {"messages":[{"role","content"}...],"tokens":N,"parts":[...]}.`;

export const SH_HELP = `sh runs SCRIPT in the built-in sandbox, with the mind's commands and limits and the
network off, over the folder DIR (default ./.reverie-sh/workspace, kept between calls)
as /workspace, and the trajectory FILE (default ./.reverie-sh/trajectory.jsonl).
The commands' appends (chat send, ...) go to FILE; the script and its output are not
recorded. It prints the script's stdout and stderr and exits with its status; a script
ended by a limit exits non-zero with a [reverie] note on stderr. --silence and --wall
set those two limits, in seconds.`;

export const USAGE = `usage:
  reverie check <path> [--json]
  reverie show <path> <step-id|prefix> [--full]
  ${CONTEXT_USAGE_LINE}
  ${SH_USAGE_LINE}
  ${EVAL_USAGE_LINE}

<path> is a Headlong trajectory folder (trajectory.jsonl, blobs/ beside it, child
trajectories in subfolders), a trajectory.jsonl, or such a folder packed as .zip or .tar.gz.

${CONTEXT_HELP}

${SH_HELP}

${EVAL_HELP}`;
