// `watch` through the real just-bash sandbox, with the mind's watchers wired
// as lib/home/wire-mind.ts wires them (helpers/wired-watchers.ts): every verb,
// whole outputs. A file `watch` writes is recorded at the block's end as the
// mind's self-edit, and runs from then on; how the watchers ran comes from
// the runner itself.
import { beforeEach, describe, expect, it } from "vitest";
import { WATCHER_TYPES } from "@/lib/mind/watchers/file";
import { watch } from "@/lib/shell/commands/watch";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { WORKSPACE } from "@/lib/shell/limits";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { isKind } from "@/lib/trajectory/schema";
import { echoShellm, outcome, predictableIds, runScope } from "../../helpers/wired-sandbox";
import { wireWatchers, type WiredWatchers } from "../../helpers/wired-watchers";

let w: WiredWatchers;

beforeEach(async () => {
  w = await wireWatchers();
});

const out = (stdout: string) => ({ stdout, stderr: "", exit: 0, timedOut: false });
const err = (stderr: string, exit = 1) => ({ stdout: "", stderr, exit, timedOut: false });
const usage = (problem: string) => err(`watch: ${problem}\n${watch.usage}\n`, 2);
const HEARD = `watch add hello --on thought,message --run 'echo "heard: $(jq -r .content)"'`;
const file = (name: string) => w.fs.readFile(`${WORKSPACE}/self/watchers/${name}.sh`);

describe("watch", () => {
  it("add writes self/watchers/NAME.sh, recorded at the block's end as the mind's self-edit; until then list and show say it is new", async () => {
    expect(await w.block(`${HEARD}; watch list; watch show hello`)).toEqual(
      out(
        [
          "added hello: from the end of this block it runs after each thought / message step (self/watchers/hello.sh)",
          "hello  on thought,message  enabled  runs 0, outputs 0, failures 0  (new: runs from the end of this block)",
          "watcher hello (self/watchers/hello.sh)",
          "on: thought, message",
          "enabled: yes",
          "runs: 0 since 2026-11-30 17:44:36Z: 0 printed, 0 failed, 0 skipped",
          "note: new in this block: it runs from the end of the block",
          "--- self/watchers/hello.sh",
          "# on: thought, message",
          'echo "heard: $(jq -r .content)"',
          "",
        ].join("\n"),
      ),
    );
    const edits = (await w.steps(w.run.runId)).filter((s) => isKind(s, "self-edit"));
    expect(edits.map((e) => [e.path, e.by, e.content])).toEqual([["self/watchers/hello.sh", { kind: "mind", run: w.run.runId, traj: w.run.journal.log.trajId }, "I created self/watchers/hello.sh (2 lines)."]]);
    expect(await w.block("watch list")).toEqual(out("hello  on thought,message  enabled  runs 0, outputs 0, failures 0\n"));
    // The script may come on stdin (a heredoc keeps its quotes as written).
    expect(await w.block("watch add shout --on=thought <<'EOF'\njq -r '.content' | tr a-z A-Z\nEOF\ncat self/watchers/shout.sh")).toEqual(
      out("added shout: from the end of this block it runs after each thought step (self/watchers/shout.sh)\n# on: thought\njq -r '.content' | tr a-z A-Z\n"),
    );
  });

  it("add refuses a bad name, missing or unknown types, no script, an unknown option, and a name taken", async () => {
    await w.block(HEARD);
    expect(await w.block("watch add Hello --on thought --run 'echo'")).toEqual(err("watch add: 'Hello' cannot be a watcher's name (lowercase letters, digits, '_' and '-', starting with a letter or digit; at most 40)\n"));
    expect(await w.block("watch add ../x --on thought --run 'echo'")).toEqual(err("watch add: '../x' cannot be a watcher's name (lowercase letters, digits, '_' and '-', starting with a letter or digit; at most 40)\n"));
    expect(await w.block("watch add x --run 'echo'")).toEqual(usage("add needs --on TYPES: the step types it runs after"));
    expect(await w.block("watch add x --on thoughts --run 'echo'")).toEqual(err(`watch add: --on: 'thoughts' is not a step type (they are: ${WATCHER_TYPES.join(", ")})\n`));
    expect(await w.block("watch add x --on ', ,' --run 'echo'")).toEqual(err("watch add: --on: it names no step types to run after (e.g. '# on: thought')\n"));
    expect(await w.block("watch add x --on thought")).toEqual(usage("add needs the bash to run: --run '<bash>', or on stdin"));
    expect(await w.block("watch add x --on thought --run")).toEqual(usage("--run needs a value"));
    expect(await w.block("watch add x --on thought -r 'echo'")).toEqual(usage("unknown option '-r'"));
    expect(await w.block("watch add x y --on thought --run 'echo'")).toEqual(usage("add takes one NAME"));
    expect(await w.block("watch add hello --on thought --run 'echo'")).toEqual(err("watch add: there is a watcher 'hello' already (self/watchers/hello.sh); watch rm hello first, or edit its file\n"));
    expect(await file("hello")).toBe('# on: thought, message\necho "heard: $(jq -r .content)"\n');
    expect(await w.block("ls self/watchers")).toEqual(out("hello.sh\n"));
  });

  it("list: each watcher with its types, whether it is on, and how it ran; a broken header is named, a changed file said", async () => {
    expect(await w.block("watch list")).toEqual(out("no watchers; watch add NAME --on TYPES --run '<bash>' adds one\n"));
    await w.block(`${HEARD}; watch add bad --on thought --run 'exit 1'; watch add quiet --on idle --run 'true'; echo 'echo hi' > self/watchers/headless.sh; echo 'not a watcher' > self/watchers/notes.txt`);
    await w.think("a");
    await w.think("b");
    expect(await w.block("watch list")).toEqual(
      out(
        [
          "bad       on thought          enabled  runs 2, outputs 0, failures 2",
          "headless  broken: its header has no '# on: TYPES' line (the step types it runs after)",
          "hello     on thought,message  enabled  runs 2, outputs 2, failures 0",
          "quiet     on idle             enabled  runs 0, outputs 0, failures 0",
          "",
        ].join("\n"),
      ),
    );
    expect(await w.block("watch disable quiet; echo '# more' >> self/watchers/hello.sh; watch list")).toEqual(
      out(
        [
          "disabled quiet (from the end of this block)",
          "bad       on thought          enabled   runs 2, outputs 0, failures 2",
          "headless  broken: its header has no '# on: TYPES' line (the step types it runs after)",
          "hello     on thought,message  enabled   runs 2, outputs 2, failures 0  (changed: from the end of this block)",
          "quiet     on idle             disabled  runs 0, outputs 0, failures 0  (changed: from the end of this block)",
          "",
        ].join("\n"),
      ),
    );
  });

  it("show: its header, how it ran (last output, last error), a note when it never printed, and its file", async () => {
    await w.block(`${HEARD}; watch add bad --on thought --run 'echo "no: $(jq -r .type)" >&2; exit 2'; watch add quiet --on thought --run 'cat > /dev/null'`);
    await w.think("the kettle is on");
    w.clock.at += 61_000;
    await w.think("tea, at last\nwith milk");
    expect(await w.block("watch show hello")).toEqual(
      out(
        [
          "watcher hello (self/watchers/hello.sh)",
          "on: thought, message",
          "enabled: yes",
          "runs: 2 since 2026-11-30 17:44:36Z: 2 printed, 0 failed, 0 skipped",
          "last output: 2026-11-30 17:45:37Z heard: tea, at last (+1 more line)",
          "--- self/watchers/hello.sh",
          "# on: thought, message",
          'echo "heard: $(jq -r .content)"',
          "",
        ].join("\n"),
      ),
    );
    expect(await w.block("watch show bad")).toEqual(
      out(
        [
          "watcher bad (self/watchers/bad.sh)",
          "on: thought",
          "enabled: yes",
          "runs: 2 since 2026-11-30 17:44:36Z: 0 printed, 2 failed (2 in a row), 0 skipped",
          "last error: 2026-11-30 17:45:37Z exit 2: no: thought",
          "note: it ran 2 times and never printed anything. Does it read the step on stdin (jq -r .content) and print what it finds?",
          "--- self/watchers/bad.sh",
          "# on: thought",
          'echo "no: $(jq -r .type)" >&2; exit 2',
          "",
        ].join("\n"),
      ),
    );
    // It read its input and printed nothing: visible, not silent.
    expect(await w.block("watch show quiet")).toEqual(
      out(
        [
          "watcher quiet (self/watchers/quiet.sh)",
          "on: thought",
          "enabled: yes",
          "runs: 2 since 2026-11-30 17:44:36Z: 0 printed, 0 failed, 0 skipped",
          "note: it ran 2 times and never printed anything. Does it read the step on stdin (jq -r .content) and print what it finds?",
          "--- self/watchers/quiet.sh",
          "# on: thought",
          "cat > /dev/null",
          "",
        ].join("\n"),
      ),
    );
    // One that prints the same whatever the step (it never reads its input): said once it has done so three times.
    await w.block("watch add tick --on thought --run 'echo tick'");
    for (const t of ["one", "two"]) await w.think(t);
    expect((await w.block("watch show tick")).stdout).not.toContain("printed the same thing");
    await w.think("three");
    expect((await w.block("watch show tick")).stdout.split("\n").filter((l) => l.startsWith("note:"))).toEqual([
      "note: its last 3 runs printed the same thing, each after another step. Does it read the step on stdin (jq -r .content)?",
    ]);
    expect(await w.block("printf '# on: thought\\n# enabled: later\\necho\\n' > self/watchers/odd.sh; watch show odd")).toEqual(
      out(
        [
          "watcher odd (self/watchers/odd.sh)",
          "broken: its '# enabled:' line says 'later'; it is 'yes', or 'no (why)'; it does not run",
          "runs: 0 since 2026-11-30 17:44:36Z: 0 printed, 0 failed, 0 skipped",
          "note: new in this block: it runs from the end of the block",
          "--- self/watchers/odd.sh",
          "# on: thought",
          "# enabled: later",
          "echo",
          "",
        ].join("\n"),
      ),
    );
    expect(await w.block("watch show nobody")).toEqual(err("watch show: no watcher 'nobody'; watch list shows them\n"));
    expect(await w.block("watch show")).toEqual(usage("show takes one NAME"));
    expect(await w.block("watch show hello bad")).toEqual(usage("show takes one NAME"));
  });

  it("logs: its latest runs, oldest first, with what each printed and why it failed", async () => {
    await w.block(`${HEARD}; watch add flaky --on thought --run 'c=$(jq -r .content); echo "got $c"; [ "$c" = ok ] || { echo "not ok: $c" >&2; exit 1; }'`);
    expect(await w.block("watch logs hello")).toEqual(out("hello has not run since 2026-11-30 17:44:36Z\n"));
    await w.think("ok");
    w.clock.at += 1_000;
    await w.think("two\nlines");
    w.clock.at += 1_000;
    await w.think("ok");
    expect(await w.block("watch logs flaky")).toEqual(
      out(
        [
          "2026-11-30 17:44:36Z printed 1 line",
          "  got ok",
          "2026-11-30 17:44:37Z failed (exit 1: not ok: two), printed 2 lines",
          "  got two",
          "  lines",
          "  stderr: not ok: two",
          "  stderr: lines",
          "2026-11-30 17:44:38Z printed 1 line",
          "  got ok",
          "",
        ].join("\n"),
      ),
    );
    expect(await w.block("watch logs hello -n 1")).toEqual(out("2026-11-30 17:44:38Z printed 1 line\n  heard: ok\n"));
    expect(await w.block("watch logs hello -n 0")).toEqual(usage("-n takes a whole number above 0, not '0'"));
    // A watcher removed keeps its log until the mind stops.
    await w.block("watch rm flaky");
    expect(await w.block("watch logs flaky -n 1")).toEqual(out("2026-11-30 17:44:38Z printed 1 line\n  got ok\n"));
    expect(await w.block("watch logs nobody")).toEqual(err("watch logs: no watcher 'nobody'; watch list shows them\n"));
  });

  it("disable and enable change its header's '# enabled:' line, from the end of the block", async () => {
    await w.block(HEARD);
    expect(await w.block("watch disable hello too chatty for now; cat self/watchers/hello.sh")).toEqual(
      out('disabled hello (from the end of this block)\n# on: thought, message\n# enabled: no (too chatty for now)\necho "heard: $(jq -r .content)"\n'),
    );
    const quiet = await w.think("hush");
    expect(await w.steps(quiet.step_id)).toEqual([]);
    expect(await w.block("watch disable hello")).toEqual(out("hello is disabled already\n"));
    expect(await w.block("watch enable hello; watch enable hello; cat self/watchers/hello.sh")).toEqual(
      out('enabled hello (from the end of this block)\nhello is enabled already\n# on: thought, message\n# enabled: yes\necho "heard: $(jq -r .content)"\n'),
    );
    const heard = await w.think("again");
    expect((await w.steps(heard.step_id)).map((s) => [s.type, s.source, (s as { content?: string }).content])).toEqual([["observation", "watcher:hello", "heard: again"]]);
    expect(await w.block("echo 'echo hi' > self/watchers/headless.sh; watch enable headless")).toEqual(
      err("watch enable: headless cannot be turned on: its header has no '# on: TYPES' line (the step types it runs after); fix self/watchers/headless.sh\n"),
    );
    expect(await w.block("watch enable nobody")).toEqual(err("watch enable: no watcher 'nobody'; watch list shows them\n"));
    expect(await w.block("watch enable hello now")).toEqual(usage("enable takes one NAME"));
  });

  it("rm removes its file; the block's end records it, and it runs no more", async () => {
    await w.block(HEARD);
    expect(await w.block("watch rm hello; ls self/watchers; watch rm hello")).toEqual({
      stdout: "removed hello (it stops at the end of this block)\n",
      stderr: "watch rm: no watcher 'hello'; watch list shows them\n",
      exit: 1,
      timedOut: false,
    });
    const edits = (await w.steps(w.run.runId)).filter((s) => isKind(s, "self-edit"));
    expect(edits.map((e) => [e.path, e.after, e.content])).toEqual([
      ["self/watchers/hello.sh", edits[0]?.after, "I created self/watchers/hello.sh (2 lines)."],
      ["self/watchers/hello.sh", null, "I removed self/watchers/hello.sh."],
    ]);
    const thought = await w.think("anyone there?");
    expect(await w.steps(thought.step_id)).toEqual([]);
  });

  it("answers --help, and names a missing or unknown subcommand", async () => {
    expect(await w.block("watch --help")).toEqual(out(`${watch.usage}\n`));
    expect(await w.block("watch")).toEqual(usage("missing subcommand"));
    expect(await w.block("watch start x")).toEqual(usage("unknown subcommand 'start'"));
    expect(await w.block("watch list all")).toEqual(usage("list takes no arguments, not 'all'"));
  });

  it("in a shell where no watchers run (the command line's), it still writes their files and says they run elsewhere", async () => {
    const ids = predictableIds();
    const session = justBashSandbox({ fs: w.fs, flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids, clock: w.clock }).open(runScope(w.run, "Ada", echoShellm()));
    const sh = async (code: string) => outcome(await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal }));
    expect(await sh(`${HEARD}; watch show hello; watch logs hello`)).toEqual(
      out(
        [
          "added hello: from the end of this block it runs after each thought / message step (self/watchers/hello.sh)",
          "watcher hello (self/watchers/hello.sh)",
          "on: thought, message",
          "enabled: yes",
          "runs: none here (watchers run in a mind's own sandbox)",
          "--- self/watchers/hello.sh",
          "# on: thought, message",
          'echo "heard: $(jq -r .content)"',
          "hello has not run here",
          "",
        ].join("\n"),
      ),
    );
  });
});
