// One function starts a mind from a home (./home.ts), whichever it is: it
// owns, once, what every home needs. The caps are checked (no caps, no
// start), the models priced, the workspace opened with its sandbox and its
// scratch copy for `self try`, its own texts loaded through its journal, its
// skills listed, and its loop wired (lib/mind) with one writer. Then the one
// way in: whatever others bring the mind comes through its state's inbound
// side (a step is taken into the log and offered to the mind; a change to
// its memory, goals or texts is made in its workspace and recorded).
import { SealedPast } from "../context/sealed-past";
import { DEFAULT_TIERS } from "../context/staircase";
import { budgetProblems, spendTally } from "../mind/budget/budget";
import { errorText, type Emit } from "../mind/events";
import { Journal } from "../mind/log/journal";
import { GATHER_MS, MindWriter, TrajectoryLog, WINDOW } from "../mind/log/mind-log";
import { Mind } from "../mind/mind";
import type { ModelPort, ShellPort } from "../mind/ports";
import { selfInstructions } from "../mind/run/prompt";
import { DEFAULT_RUN_LIMITS } from "../mind/run/types";
import type { MindSettings } from "../mind/settings/settings";
import type { InboundChange } from "../mind/state/inbound";
import { Watchers } from "../mind/watchers/watchers";
import { commandList } from "../shell/commands/registry";
import { applyCuration, Curation, sandboxCurationFs } from "../shell/curation";
import { lazyShell } from "../shell/lazy-shell";
import { FIXED_LIMITS, WORKSPACE } from "../shell/limits";
import { SelfChange } from "../shell/self/change";
import { fsSelfFiles, recordsSelfFiles, selfPath } from "../shell/self/files";
import { SELF_DIR } from "../shell/self/paths";
import { listSkills, recordsReader, SKILLS_DIR } from "../shell/skills";
import type { Step } from "../trajectory/schema";
import type { Home } from "./home";
import { SelfLedger } from "./self-ledger";
import { openWorkspace, type OpenWorkspace } from "./workspace";

export interface StartedMind {
  readonly loop: Mind;
  readonly journal: Journal;
  readonly log: TrajectoryLog;
  /** The trajectory its steps go to. */
  readonly root: string;
  readonly settings: MindSettings;
  /** Resolves when the loop has ended (stopped, or its wait handed to its home) and every step is stored. */
  readonly done: Promise<void>;
  /** End it now: a run under way is cut and recorded as stopped; resolves once its steps are stored. */
  stop(): Promise<void>;
  /** Resolves once its summaries and watchers have caught up (a home putting the mind away lets them). */
  caughtUp(): Promise<void>;
}

export interface StartOptions {
  /** Going on after a wait its home kept, due at `dueAt` (ms): only lateness past it counts as being away. */
  resume?: { dueAt: number };
}

/** Starts the mind its home holds; throws, before anything is written, when it cannot start there (no record, no caps, no price). */
export async function startMind(home: Home, emit: Emit, opts: StartOptions = {}): Promise<StartedMind> {
  const { state, clock, ids } = home;
  const o = home.options ?? {};
  const record = await state.record();
  if (!record) throw new Error(`There is no mind ${state.mindId} here (or its record is damaged).`);
  const settings = record.settings;
  // An unbounded bill is a start-up failure: no caps, no start.
  const capProblems = budgetProblems(settings.budget);
  if (!settings.budget || capProblems.length) throw new Error(`${settings.name} has no spend caps, so it does not start: set an hourly and a daily cap in Settings. (${capProblems.join(" ")})`);
  const caps = settings.budget;
  const busy = o.busy ?? (<T>(work: Promise<T>) => work);
  const model = await home.model(settings);
  // Summaries by the cheaper model its human picked (same provider and key), priced like the mind's own.
  const summaryModel = settings.summary_model ? await home.model({ ...settings, model: { ...settings.model, model: settings.summary_model, price: undefined } }) : undefined;
  const net = home.network(settings);
  const root = home.root ?? state.mindId;
  const files = home.workspace ?? state.files;

  // The mind's one writer: its steps, usage and records go to the state in order, one transaction a write.
  const writer = new MindWriter(state, {
    nextTurn: o.gather ?? (() => new Promise((resolve) => setTimeout(resolve, GATHER_MS))),
    onRecordError: (e) => emit({ type: "record-error", error: errorText(e) }),
  });
  const stored = () => writer.flushed().catch(() => undefined);
  const past = new SealedPast(DEFAULT_TIERS);
  const log = new TrajectoryLog(writer, root, WINDOW, past);
  const journal = new Journal(log, ids, clock);

  // Its own texts (self/), as its trajectory records them: set up at its first start from the saved rows (straight to
  // the store: they are not files a block wrote), then read in the workspace once it is open. Written through its journal.
  const ledger = await SelfLedger.load({
    state,
    root,
    files: recordsSelfFiles(() => state.files.loadUnder(SELF_DIR), (put, remove) => state.files.save(put, remove), () => clock.now()),
    persona: settings.persona,
    clock,
    ids,
    append: (step) => journal.append(step),
  });
  // The workspace and its sandbox: opened now, or (a lazy home) once the first model call is out, when a block that
  // comes sooner waits for it. Until it is open, its skills are read from the saved rows.
  let workspace: OpenWorkspace | null = null;
  const shell = lazyShell(async () => {
    workspace = await openWorkspace(files, net, { ids, clock });
    ledger.useFiles(fsSelfFiles(workspace.fs, workspace.flush));
    return busyShell(workspace.shell, busy);
  });
  if (!o.lazyWorkspace) await shell.warm();
  const opened = (): OpenWorkspace => {
    if (!workspace) throw new Error("the workspace is not open");
    return workspace;
  };
  const skills = () => (workspace ? listSkills(workspace.fs) : state.files.loadUnder(SKILLS_DIR).then((rows) => listSkills(recordsReader(rows))));

  // The watchers it wrote (self/watchers/), as its ledger records them: each runs in its sandbox after the steps it names.
  const watchers = new Watchers({
    journal,
    shell,
    clock,
    selfName: settings.name,
    recorded: () => ledger.watchers(),
    rewrite: (name, text) => ledger.harnessWrite(selfPath(`watchers/${name}.sh`), text, "watcher-failed"),
    limits: { wallMs: FIXED_LIMITS.watcherWallMs, outputBytes: FIXED_LIMITS.watcherOutputBytes, runsPerMinute: FIXED_LIMITS.watcherRunsPerMinute },
    cwd: WORKSPACE,
  });
  // Every session of its runs sees how they ran (`watch`).
  const watched: ShellPort = { open: (scope) => shell.open({ ...scope, watchers }) };
  const extras = async () => ({ commands: commandList(), skills: await skills().catch(() => []) });
  const loop = new Mind({
    journal,
    persona: settings.persona,
    model: o.lazyWorkspace ? warmOnFirstCall(model, () => void shell.warm().catch(() => undefined)) : model,
    budget: { caps, spend: spendTally((since) => state.spendSince(since), clock) },
    summaries: { past, store: state.tiers(root), model: summaryModel, ...(o.readBeforeFirstWake ? { readBeforeFirstWake: true } : {}) },
    shell: watched,
    clock,
    selfName: settings.name,
    self: ledger,
    watchers,
    instructions: async () => selfInstructions(ledger.texts(), settings.name, await extras()),
    // A try's sandbox: over a scratch copy of the workspace as it is now (never saved), on the same network.
    trial: {
      scratch: async () => {
        await shell.warm();
        return busyShell(await opened().scratch(), busy);
      },
      render: async (texts) => selfInstructions(texts, settings.name, await extras()),
      ...(o.recordedCall ? { recorded: o.recordedCall } : {}),
    },
    pacing: settings.pacing,
    where: home.where,
    limits: { ...DEFAULT_RUN_LIMITS, maxIterations: settings.max_iterations },
    nesting: { maxDepth: net.permissions.limits.recursion_depth, childIterations: net.permissions.limits.child_iterations },
    shellState: record.shell ?? { env: {}, cwd: WORKSPACE },
    pacingState: record.pacing,
    keepsWaits: o.keepsWaits ?? false,
    contexts: writer,
    // What it keeps for its next start (a failed save only costs that) goes to its state; everything goes to its home.
    emit: (e) => {
      if (e.type === "shell-state") void state.saveShellState(e.shell).catch(() => undefined);
      if (e.type === "pacing") void state.savePacing(e.pacing).catch(() => undefined);
      emit(e);
    },
  });

  // The one way in. A step is taken into the log (the root's: a child's steps are its runs') and offered to the
  // mind; a config step means its human changed its settings. A change is made where its files are, then recorded.
  const made = async (step: Step): Promise<Step> => {
    loop.notify(step);
    await stored();
    return step;
  };
  const change = async (c: InboundChange): Promise<Step> => {
    await shell.warm();
    const ws = opened();
    if (c.kind === "self") {
      const asked = SelfChange.safeParse(c.body);
      return asked.success ? made(await ledger.apply(asked.data)) : made(await refused(journal, c, asked.error.message));
    }
    const asked = Curation.safeParse(c.body);
    if (!asked.success) return made(await refused(journal, c, asked.error.message));
    const step = await applyCuration(sandboxCurationFs(ws.fs), asked.data, clock.now(), ids);
    await ws.flush();
    return made(await journal.append(step));
  };
  let ended = false;
  // What arrives is written by the mind's one writer, as another's (its work is not the inner life's), stamped as it takes it.
  const door = journal.forThinker();
  const inbound = await state.inbound.open({
    steps(steps) {
      for (const { trajId, step } of steps) {
        if (trajId === root) log.ingest(step);
        loop.notify(step);
      }
      if (steps.some((s) => s.step.type === "config")) emit({ type: "settings-changed" });
    },
    async arrive(steps) {
      // New settings end the stretch before their config step is written: its home stops the loop at once (a run under
      // way is cut) and starts the next with them, so nothing the old settings ran comes after the step in the life.
      if (!ended && steps.some((s) => s.type === "config")) emit({ type: "settings-changed" });
      const written: Step[] = [];
      for (const step of steps) written.push(await door.take(step));
      await stored();
      // Taken after the loop ended (what came in as it stopped): written, and read at its next start.
      if (ended) return;
      for (const step of written) loop.notify(step);
    },
    change,
  });

  const done = loop.start(opts.resume ? { resume: opts.resume } : {}).finally(async () => {
    ended = true;
    await inbound.close();
    await stored();
  });
  return {
    loop,
    journal,
    log,
    root,
    settings,
    done,
    async stop() {
      await loop.stop();
      await done.catch(() => undefined);
      await stored();
    },
    caughtUp: () => loop.caughtUp(),
  };
}

/** A change that could not be read is recorded as refused, under its id, so it is not asked again. */
function refused(journal: Journal, c: InboundChange, why: string): Promise<Step> {
  return journal.append({ type: "error", reason: "change", step_id: c.id.toLowerCase(), content: `A change to my ${c.kind === "self" ? "own texts" : "memory"} could not be read, so it was not made: ${why}`, source: "system" });
}

/** Blocks run through the home's `busy` (a simulated clock counts them as work). */
function busyShell(sandbox: ShellPort, busy: <T>(work: Promise<T>) => Promise<T>): ShellPort {
  return {
    open: (scope) => {
      const session = sandbox.open(scope);
      return { exec: (code, req) => busy(session.exec(code, req)) };
    },
  };
}

/** The model, which warms the workspace once its first call is under way: the sandbox then loads while the request is out. */
function warmOnFirstCall(model: ModelPort, warm: () => void): ModelPort {
  let warmed = false;
  return {
    name: model.name,
    complete(req) {
      const reply = model.complete(req);
      if (!warmed) {
        warmed = true;
        setTimeout(warm, 0);
      }
      return reply;
    },
  };
}
