// A mind's own texts (/workspace/self/: persona.md, instructions.md, …, and
// the watchers it wrote, self/watchers/NAME.sh) as its trajectory records
// them. The thinkers never read the files: they read the texts as last
// recorded here, and a text changes here only after its `self-edit` step is
// appended. So whatever route changed a file (a block, a write through a
// link, a crash between a save and its step), no text reaches the model, and
// no watcher runs, without its step first; the worst case is a late step,
// never a missing one.
import type { Clock, Ids } from "../mind/ports";
import { SELF_FILES, type SelfFile, type SelfPort, type SelfTexts } from "../mind/self/self";
import { defaultSelfTexts } from "../mind/self/defaults";
import type { MindState } from "../mind/state/state";
import { readAllOfKind } from "../mind/log/mind-log";
import { foldSelfEdits, selfEditStep, sha256 } from "../shell/self/edit";
import { planSelfChange, revertedText, type SelfChange, type SelfEdit } from "../shell/self/change";
import { selfPath, type SelfFilesPort } from "../shell/self/files";
import { SELF_DIR } from "../shell/self/paths";
import { FIXED_LIMITS } from "../shell/limits";
import { isKind, type NewStep, type SelfEditBy, type Step } from "../trajectory/schema";

/** By workspace-relative path ("self/instructions.md"): the text as recorded and its sha. */
type Recorded = Map<string, { text: string; sha: string }>;
type Append = (step: NewStep) => Promise<Step>;

const TEXT_PATHS = SELF_FILES.map(selfPath);
/** The texts the inner life's runs are made of: a change to one of them is watched by the guard. */
const RUN_TEXTS = ["persona.md", "instructions.md", "first-look.md"].map(selfPath);

/** The runs after a change to the run texts that the guard waits for: all of them failing in ways the text can cause takes the change back (issue 24, part 6). */
export const GUARD_RUNS = 3;
/** Run endings the harness text can cause: no bash block (a bare thought), an empty or unparseable reply, FINAL never set, the same reply again and again. */
const TEXT_FAILURES: Readonly<Record<string, string>> = {
  thought: "no bash block",
  "empty-reply": "an empty reply",
  iterations: "no FINAL",
  repeat: "the same reply again and again",
};

/** Why a run ended in a way its texts can cause, or null: it did not (it set FINAL, or failed for another reason). Undefined: it says nothing either way (stopped, the model failed, a cap). */
function textFailure(outcome: { end: string; reason?: string }): string | null | undefined {
  if (outcome.end === "final") return null;
  if (outcome.end === "thought") return TEXT_FAILURES.thought ?? null;
  if (outcome.end === "error") return TEXT_FAILURES[outcome.reason ?? ""] ?? null;
  return undefined;
}
const isText = (path: string) => TEXT_PATHS.includes(path);

export interface SelfLedgerLoad {
  /** Where its self-edits are read from (its steps as stored). */
  state: MindState;
  /** How its steps are written: the mind's journal, so they are the mind's own (the store has one writer). */
  append: Append;
  /** The mind's own trajectory: its self-edits are there, whichever run made them. */
  root: string;
  /** Its texts where they are now (the saved rows, before a tab opens its workspace). */
  files: SelfFilesPort;
  /** Its persona as its settings hold it: persona.md at its first start. */
  persona: string;
  clock: Clock;
  ids: Ids;
}

export class SelfLedger implements SelfPort {
  /** settle and the human's changes, one at a time. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Adoptions so far: a run says which texts it had by this. */
  private adopted = 0;
  /** The change to the run texts the guard watches, from which adoption on, and why each run after it failed (null: it did not). */
  private watched: { edit: SelfEdit; from: number; runs: (string | null)[] } | null = null;
  /** The files' count of changes when a settle last read them and recorded all it found (null: not read through them yet). */
  private settledAt: number | null = null;

  private constructor(
    private files: SelfFilesPort,
    private readonly recorded: Recorded,
    private readonly append: Append,
    /** The mind's self-edits as stored (a revert names one). */
    private readonly edits: () => Promise<SelfEdit[]>,
  ) {}

  /**
   * The texts as the trajectory records them, set up at the mind's first
   * start (no self-edit yet: every mind made before self/ existed) from its
   * persona and the shipped defaults, so it goes on with exactly the texts
   * it ran with. A file that differs from its record (changed with no step)
   * is recorded now; a missing text is written back.
   */
  static async load(o: SelfLedgerLoad): Promise<SelfLedger> {
    const stored = async () => (await readAllOfKind(o.state, o.root, ["self-edit"])).filter((s) => isKind(s, "self-edit"));
    const edits = await stored();
    const ledger = new SelfLedger(o.files, new Map(), o.append, stored);
    if (edits.length === 0) await ledger.firstStart(o);
    else await ledger.reconcile(edits, defaultSelfTexts(o.persona));
    return ledger;
  }

  private async firstStart(o: SelfLedgerLoad): Promise<void> {
    if (await o.files.exists()) {
      // The mind made a self/ of its own before it had one: kept beside, and said.
      const aside = `${SELF_DIR}.before-${new Date(o.clock.now()).toISOString().slice(0, 10).replaceAll("-", "")}-${o.ids.uuid().slice(0, 4)}`;
      await o.files.moveAside(aside);
      await this.append({ type: "observation", content: `My harness now keeps my own texts in ${SELF_DIR}/; what was there before is now in ${aside}/.`, source: "system" });
    }
    const defaults = defaultSelfTexts(o.persona);
    await o.files.write(SELF_FILES.map((file) => ({ path: selfPath(file), text: defaults[file].text })));
    for (const file of SELF_FILES) await this.record(await selfEditStep(selfPath(file), null, defaults[file].text, { kind: "harness", why: "first-start" }), selfPath(file), defaults[file].text);
  }

  /** At a start: the recorded texts against the files; what differs is recorded as found. */
  private async reconcile(edits: readonly SelfEdit[], defaults: SelfTexts): Promise<void> {
    const onDisk = await this.files.read();
    const restore: { path: string; text: string }[] = [];
    // Each path's newest self-edit says, by its sha, what the text is. The steps' diffs are applied (all of a long
    // life's) only when a file on disk is not that text.
    const newest = new Map(edits.map((e) => [e.path, e]));
    let folded: Map<string, string | null | undefined> | undefined;
    for (const path of new Set([...TEXT_PATHS, ...newest.keys(), ...onDisk.keys()])) {
      const disk = onDisk.get(path) ?? null;
      const sha = disk === null ? null : await sha256(disk);
      if (sha !== null && newest.get(path)?.after === sha) {
        this.recorded.set(path, { text: disk as string, sha });
        continue;
      }
      // A text the steps cannot give back (a damaged log) is recorded as found on disk.
      const known = (folded ??= foldSelfEdits(edits)).get(path) ?? null;
      if (known !== null && (disk === null || disk === known)) {
        this.recorded.set(path, { text: known, sha: await sha256(known) });
        // A text is never missing (a watcher may be: it was removed).
        if (disk === null && isText(path)) restore.push({ path, text: known });
        else if (disk === null) await this.record(await selfEditStep(path, known, null, { kind: "harness", why: "unrecorded" }), path, null);
        continue;
      }
      // Unknown and not there: a text is written as shipped (a watcher is simply not there).
      if (known === null && disk === null && !isText(path)) continue;
      const now = disk ?? defaults[path.slice("self/".length) as SelfFile].text;
      await this.record(await selfEditStep(path, known, now, { kind: "harness", why: "unrecorded" }), path, now);
      if (disk === null) restore.push({ path, text: now });
    }
    if (restore.length) await this.files.write(restore);
  }

  /** The workspace is open: its texts are read there from now on. */
  useFiles(files: SelfFilesPort): void {
    this.files = files;
    this.settledAt = null;
  }

  texts(): SelfTexts {
    const out = {} as Record<SelfFile, { text: string; sha: string }>;
    for (const file of SELF_FILES) {
      const r = this.recorded.get(selfPath(file));
      if (r) out[file] = { text: r.text, sha: r.sha };
    }
    return out;
  }

  /** The watchers as recorded, by name (self/watchers/NAME.sh → NAME), with their scripts. */
  watchers(): Map<string, { text: string; sha: string }> {
    const out = new Map<string, { text: string; sha: string }>();
    for (const [path, r] of this.recorded) if (path.startsWith("self/watchers/")) out.set(path.slice("self/watchers/".length).replace(/\.sh$/, ""), r);
    return out;
  }

  /**
   * After a block: whatever self/ holds that differs from its record is
   * recorded now, as the mind's change. Read only when the sandbox says
   * self/ was written since the last settle that recorded all it found
   * (SelfFilesPort.changes, counting the blocks' writes and the watchers'
   * alike), or when writes were refused; a settle that fails leaves the count
   * as it was, so the next block's reads again.
   */
  settle(by: { run: string; traj: string }, refused = 0): Promise<void> {
    return this.serial(async () => {
      // Taken before the read: a change that lands while it reads moves the count past it.
      const changes = this.files.changes?.() ?? null;
      if (refused === 0 && changes !== null && changes === this.settledAt) return;
      const now = await this.files.read();
      const restore: { path: string; text: string }[] = [];
      const mind: SelfEditBy = { kind: "mind", run: by.run, traj: by.traj };
      for (const path of new Set([...this.recorded.keys(), ...now.keys()])) {
        const was = this.recorded.get(path)?.text ?? null;
        const is = now.get(path) ?? null;
        if (is === was) continue;
        if (is === null && was !== null && isText(path)) {
          // A text is not a plain file any more (removed, replaced by a link): it stays as recorded, and is written back.
          restore.push({ path, text: was });
          continue;
        }
        await this.record(await selfEditStep(path, was, is, mind), path, is);
      }
      if (restore.length) {
        await this.files.write(restore);
        await this.append({
          type: "error",
          reason: "self-shape",
          content: `${restore.map((r) => r.path).join(", ")} ${restore.length > 1 ? "were" : "was"} no longer a plain file after run ${by.run.slice(0, 8)}'s block; written back as recorded (self/ keeps its texts as plain files: change them, do not remove them).`,
          source: "system",
        });
      }
      if (refused > 0) {
        await this.append({
          type: "error",
          reason: "self-rate",
          content: `${refused} write${refused > 1 ? "s" : ""} to self/ in run ${by.run.slice(0, 8)} ${refused > 1 ? "were" : "was"} refused: self/ takes at most ${FIXED_LIMITS.selfWritesPerMinute} writes a minute.`,
          source: "system",
        });
      }
      this.settledAt = changes;
    });
  }

  /**
   * A person's change (its owner's write or revert, served from the page's
   * queue): worked out against the texts as recorded, written to the file,
   * recorded under the request's id, then adopted. What a block under way
   * wrote to the same file meanwhile is overwritten (its settle then finds
   * the person's text, and records nothing).
   */
  apply(c: SelfChange): Promise<Step> {
    return this.serial(async () => {
      const plan = await planSelfChange(
        c,
        (file) => this.recorded.get(selfPath(file))?.text ?? null,
        async (id) => (await this.edits()).find((e) => e.step_id === id),
      );
      if ("refused" in plan) return this.append(plan.refused);
      await this.files.write([{ path: selfPath(plan.file), text: plan.text }]);
      return this.record(plan.step, selfPath(plan.file), plan.text);
    });
  }

  /**
   * The mind makes a trial's texts its own (`self merge`): each that differs
   * from its text as recorded becomes a self-edit citing the try's child
   * trajectory. Refused, with nothing changed, when one of those texts
   * changed since the trial was forked (`base`: its sha then).
   */
  merge(trial: string, tryChild: string, texts: ReadonlyMap<SelfFile, { text: string; base: string }>): Promise<{ ok: true; edits: SelfEdit[] } | { ok: false; error: string }> {
    return this.serial(async () => {
      const changed = [...texts].filter(([file, t]) => this.recorded.get(selfPath(file))?.text !== t.text);
      const moved = changed.filter(([file, t]) => this.recorded.get(selfPath(file))?.sha !== t.base).map(([file]) => selfPath(file));
      if (moved.length) return { ok: false as const, error: `${moved.join(", ")} changed since trial ${trial} was forked; fork again (or copy the change into the trial) and try it again.` };
      const edits: SelfEdit[] = [];
      for (const [file, t] of changed) {
        const path = selfPath(file);
        const was = this.recorded.get(path)?.text ?? null;
        await this.files.write([{ path, text: t.text }]);
        edits.push(await this.record(await selfEditStep(path, was, t.text, { kind: "merge", trial, try: tryChild }), path, t.text));
      }
      return { ok: true as const, edits };
    });
  }

  /** The harness changes a file of self/ itself (it turned off a watcher that kept failing): written, recorded as the harness's, adopted. */
  harnessWrite(path: string, text: string, why: "watcher-failed"): Promise<SelfEdit> {
    return this.serial(async () => {
      const was = this.recorded.get(path)?.text ?? null;
      await this.files.write([{ path, text }]);
      return this.record(await selfEditStep(path, was, text, { kind: "harness", why }), path, text);
    });
  }

  version(): number {
    return this.adopted;
  }

  /**
   * The guard: after a change to the run texts (by the mind or a person), the
   * next GUARD_RUNS runs that had it, and made a call from the changed text, are counted; if every one failed in a
   * way the text can cause, the change is taken back as a new self-edit and
   * an error step names it. Runs that say nothing (stopped, the model down,
   * a cap) are not counted.
   */
  ran(version: number, outcome: { end: string; reason?: string }, used: readonly SelfFile[]): Promise<void> {
    return this.serial(async () => {
      const w = this.watched;
      const failure = textFailure(outcome);
      // A run none of whose calls read the changed text says nothing of it.
      if (!w || version < w.from || failure === undefined || !used.some((f) => selfPath(f) === w.edit.path)) return;
      w.runs.push(failure);
      if (w.runs.length < GUARD_RUNS) return;
      this.watched = null;
      if (w.runs.some((r) => r === null)) return;
      const whys = [...new Set(w.runs)].join(", ");
      const was = this.recorded.get(w.edit.path)?.text ?? null;
      const back = was === null ? false : revertedText(w.edit, was);
      if (back === false) {
        await this.append({ type: "error", reason: "self-guard", content: `The ${GUARD_RUNS} runs after change ${w.edit.step_id.slice(0, 8)} to ${w.edit.path} all failed (${whys}), but it could not be taken back: the text changed since in the same lines.`, source: "system" });
        return;
      }
      await this.files.write([{ path: w.edit.path, text: back }]);
      const step = await this.record(await selfEditStep(w.edit.path, was, back, { kind: "guard", of: w.edit.step_id }), w.edit.path, back);
      await this.append({
        type: "error",
        reason: "self-guard",
        content: `The ${GUARD_RUNS} runs after change ${w.edit.step_id.slice(0, 8)} to ${w.edit.path} all failed (${whys}), so my harness took it back (${step.step_id.slice(0, 8)}); the text is as it was before it.`,
        source: "system",
      });
    });
  }

  /** Append the step, then adopt the text (null: the file is gone): never the other way round. A change to the run texts is watched by the guard. */
  private async record(step: NewStep & { type: "self-edit" }, path: string, text: string | null): Promise<SelfEdit> {
    // The journal hands back the step it was given, stamped.
    const written = (await this.append(step)) as SelfEdit;
    if (text === null) this.recorded.delete(path);
    else this.recorded.set(path, { text, sha: step.after ?? (await sha256(text)) });
    this.adopted++;
    if (RUN_TEXTS.includes(path) && ["mind", "human", "revert", "merge"].includes(step.by.kind)) this.watched = { edit: written, from: this.adopted, runs: [] };
    return written;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
