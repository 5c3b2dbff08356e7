// A mind's state held in memory: the MindState of unit tests and of command-line
// runs. It keeps the same promises as the stores (lib/store for IndexedDB): each
// step is checked and stored in JSON (so `undefined` fields vanish), a batch is
// all-or-a-valid-prefix, seqs grow per mind in append order, a blob or a sealed
// block is written once, and reads of a trajectory see only its own steps.
import { inStream } from "../../context/build";
import { TierLine } from "../../context/rollups";
import type { SealedTier } from "../../context/sealed-past";
import type { SeenCall } from "../../context/replay";
import { parseStep, stepUsage, type Step } from "../../trajectory/schema";
import { stepText } from "../../trajectory/summary";
import type { FoundStep } from "../ports";
import type { InboundChange, InboundPort, InboundSink } from "./inbound";
import { InvalidStepError, type FileRecord, type PacingSnapshot, type WorkspaceStore, type MindRecord, type MindState, type SeqStep, type ShellState, type SpendEntry, type StateBatch, type TierStorePort } from "./state";

interface Stored {
  seq: number;
  trajId: string;
  step: Step;
}

interface Traj {
  name: string;
  parent?: string;
  steps: Stored[];
  blobs: Map<string, string>;
  tiers: Map<string, SealedTier & { model?: string; created?: string }>;
}

export class MemoryMindState<Settings = unknown> implements MindState<Settings> {
  private seq = 0;
  private readonly trajs = new Map<string, Traj>();
  private readonly spend: SpendEntry[] = [];
  private readonly fileRows = new Map<string, FileRecord>();
  /** What each model call saw, in the order recorded (the inspector's rows, here whole). */
  readonly seen: SeenCall[] = [];
  /** The shell state last saved. */
  shell: ShellState | undefined;
  /** The pacing last saved. */
  pacing: PacingSnapshot | undefined;
  /** When set, every write rejects with it (as a full disk would). */
  failWrites: Error | null = null;

  constructor(
    readonly mindId: string,
    private readonly settings?: Settings,
  ) {
    this.trajs.set(mindId, { name: "root", steps: [], blobs: new Map(), tiers: new Map() });
  }

  private traj(trajId: string): Traj {
    const t = this.trajs.get(trajId);
    if (!t) throw new Error(`There is no trajectory ${trajId} in mind ${this.mindId}.`);
    return t;
  }

  private checked(step: Step): Step | string {
    const parsed = parseStep(JSON.parse(JSON.stringify(step)));
    return parsed.ok ? parsed.step : parsed.error;
  }

  async append(batch: StateBatch): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    const ok: { trajId: string; step: Step }[] = [];
    let refused: InvalidStepError | null = null;
    for (const { trajId, step } of batch.steps) {
      this.traj(trajId);
      const checked = this.checked(step);
      if (typeof checked === "string") {
        refused = new InvalidStepError(`Refusing to append an invalid step: ${checked}`, ok.length);
        break;
      }
      ok.push({ trajId, step: checked });
    }
    for (const { trajId, step } of ok) {
      this.traj(trajId).steps.push({ seq: ++this.seq, trajId, step });
      const u = stepUsage(step);
      if (u) this.spend.push({ ts: Date.parse(step.ts), usd: u.usd ?? 0 });
    }
    // A record of a refused step is not kept: it would cite a step the log does not hold.
    const lost = new Set(batch.steps.slice(ok.length).map((s) => s.step.step_id));
    for (const call of batch.seen) if (!lost.has(call.step_id)) this.seen.push(structuredClone(call));
    if (refused) throw refused;
  }

  async tail(trajId: string, n: number): Promise<Step[]> {
    return n <= 0 ? [] : this.traj(trajId).steps.slice(-n).map((s) => s.step);
  }

  async count(trajId: string): Promise<number> {
    return this.traj(trajId).steps.length;
  }

  async find(idOrPrefix: string, limit: number): Promise<FoundStep[]> {
    const prefix = idOrPrefix.toLowerCase();
    const out: FoundStep[] = [];
    for (const [trajId, t] of this.trajs) for (const s of t.steps) if (s.step.step_id.startsWith(prefix)) out.push({ step: s.step, trajId });
    return out.slice(0, limit);
  }

  async search(trajId: string, text: string, limit: number): Promise<Step[]> {
    const q = text.toLowerCase();
    if (!q) return [];
    const out: Step[] = [];
    for (const { step } of this.traj(trajId).steps.toReversed()) {
      if (out.length >= limit) break;
      if (stepText(step).toLowerCase().includes(q)) out.push(step);
    }
    return out;
  }

  async ofKind(trajId: string, kinds: readonly string[], limit: number, afterSeq = 0): Promise<SeqStep[]> {
    const wanted = new Set(kinds);
    const out: SeqStep[] = [];
    for (const s of this.traj(trajId).steps) {
      if (out.length >= limit) break;
      if (s.seq > afterSeq && wanted.has(s.step.type)) out.push({ seq: s.seq, step: s.step });
    }
    return out;
  }

  async fork(parentTrajId: string, child: { trajId: string; name: string }): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.traj(parentTrajId);
    if (this.trajs.has(child.trajId)) throw new Error(`Trajectory ${child.trajId} is forked already.`);
    this.trajs.set(child.trajId, { name: child.name, parent: parentTrajId, steps: [], blobs: new Map(), tiers: new Map() });
  }

  async putBlob(trajId: string, name: string, text: string): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    const blobs = this.traj(trajId).blobs;
    // Blobs are named after their step: a second write of one name is a bug.
    if (blobs.has(name)) throw new Error(`Blob ${name} is written already.`);
    blobs.set(name, text);
  }

  async blob(trajId: string, ref: string): Promise<string | undefined> {
    return this.trajs.get(trajId)?.blobs.get(ref.replace(/^blobs\//, ""));
  }

  tiers(trajId: string): TierStorePort {
    const t = () => this.traj(trajId);
    return {
      list: async () => [...t().tiers.values()].map((row) => TierLine.parse(row)).sort((a, b) => a.tier - b.tier || a.index - b.index),
      seal: async (tier) => {
        const parsed = TierLine.safeParse(tier);
        if (!parsed.success) throw new Error(`Refusing to seal an invalid summary: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
        const key = `${tier.tier}:${tier.index}`;
        if (t().tiers.has(key)) return "already-sealed";
        t().tiers.set(key, { ...parsed.data, ...(tier.model !== undefined ? { model: tier.model } : {}), ...(tier.created !== undefined ? { created: tier.created } : {}) });
        return "sealed";
      },
      keysAfter: async (seq) => t().steps.filter((s) => s.seq > seq).map((s) => ({ seq: s.seq, type: s.step.type, step_id: s.step.step_id })),
      steps: async (first, last) => t().steps.filter((s) => s.seq >= first && s.seq <= last).map((s) => s.step).filter(inStream),
    };
  }

  async spendSince(sinceMs: number): Promise<SpendEntry[]> {
    return this.spend.filter((e) => e.ts >= sinceMs);
  }

  readonly files: WorkspaceStore = {
    loadAll: async () => [...this.fileRows.values()].map((r) => ({ ...r })),
    loadUnder: async (dir) => [...this.fileRows.values()].filter((r) => r.path === dir || r.path.startsWith(`${dir}/`)).map((r) => ({ ...r })),
    save: async (put, remove) => {
      if (this.failWrites) throw this.failWrites;
      for (const p of remove) this.fileRows.delete(p);
      for (const r of put) this.fileRows.set(r.path, { ...r });
    },
  };

  /** The running mind's way in, while it is open. */
  private sink: InboundSink | null = null;

  readonly inbound: InboundPort = {
    open: async (sink) => {
      this.sink = sink;
      return {
        close: async () => {
          if (this.sink === sink) this.sink = null;
        },
      };
    },
  };

  /** Someone else brings the mind a step (a scenario's message at its hour, a test's): its writer takes it while it runs; with none running it is stored as it is. */
  async deliver(step: Step): Promise<void> {
    if (this.sink) await this.sink.arrive([step]);
    else await this.append({ steps: [{ trajId: this.mindId, step }], seen: [] });
  }

  /** Someone asks a change of the running mind (its memory, its texts): the step that records it, or undefined when no mind is open here. */
  async change(c: InboundChange): Promise<Step | undefined> {
    return this.sink?.change(c);
  }

  async record(): Promise<MindRecord<Settings> | undefined> {
    if (this.settings === undefined) return undefined;
    return { settings: this.settings, shell: this.shell && { env: { ...this.shell.env }, cwd: this.shell.cwd }, ...(this.pacing ? { pacing: { ...this.pacing } } : {}) };
  }

  async savePacing(pacing: PacingSnapshot): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.pacing = { ...pacing };
  }

  async saveShellState(state: ShellState): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.shell = { env: { ...state.env }, cwd: state.cwd };
  }

  /** Every step of a trajectory, oldest first (for tests and the command line). */
  steps(trajId = this.mindId): Step[] {
    return this.traj(trajId).steps.map((s) => s.step);
  }

  /** A trajectory's name and the names of its blobs (for writing it out as an archive). */
  trajectory(trajId = this.mindId): { name: string; blobs: string[] } {
    const t = this.traj(trajId);
    return { name: t.name, blobs: [...t.blobs.keys()] };
  }

  /** The trajectories forked from `trajId`. */
  children(trajId = this.mindId): string[] {
    return [...this.trajs].filter(([, t]) => t.parent === trajId).map(([id]) => id);
  }
}
