// A StepLog over a Headlong `trajectory.jsonl` on disk, for `reverie sh`.
// Lines are read once with the tolerant reader (a bad line is skipped, never
// hides the ones after it); appends go to the file and to what was read, so
// nothing written is read back. Large outputs live in `blobs/` next to the
// file; a fork is a child folder nested in this one (Headlong's layout).
import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { FoundStep, Ids, StepLog } from "../lib/mind/ports";
import { readLine, TRAJECTORY_FILE, trajDirName } from "../lib/trajectory/headlong";
import { formatTs, parseStep, type Step } from "../lib/trajectory/schema";
import { stepText } from "../lib/trajectory/summary";

export const SH_TRAJECTORY_NAME = "reverie sh";

/** A blob's file name: one plain component (refs come from the file, which anyone may have edited). */
const BLOB_NAME = /^(?!\.\.?$)[A-Za-z0-9._-]{1,200}$/;

/** The trajectories one open log reaches: the root and the children forked from it since. */
type Family = Map<string, JsonlLog>;

class JsonlLog implements StepLog {
  constructor(
    readonly trajId: string,
    readonly file: string,
    private readonly steps: Step[],
    private readonly family: Family,
    /** The file's last line has no newline yet: the next append starts one. */
    private openLine = false,
  ) {
    family.set(trajId, this);
  }

  private get dir(): string {
    return dirname(this.file);
  }

  async append(step: Step): Promise<void> {
    // As the Dexie log does: an invalid step is a bug in the writer, not something to store.
    const line = JSON.stringify(step);
    const parsed = parseStep(JSON.parse(line));
    if (!parsed.ok) throw new Error(`Refusing to append an invalid step: ${parsed.error}`);
    appendFileSync(this.file, `${this.openLine ? "\n" : ""}${line}\n`);
    this.openLine = false;
    this.steps.push(parsed.step);
  }

  async putBlob(name: string, text: string): Promise<void> {
    if (!BLOB_NAME.test(name)) throw new Error(`not a blob name: ${JSON.stringify(name)}`);
    mkdirSync(join(this.dir, "blobs"), { recursive: true });
    // Blobs are named after their step: a second write of one name is a bug ("wx" refuses it).
    writeFileSync(join(this.dir, "blobs", name), text, { flag: "wx" });
  }

  async blob(ref: string, trajId = this.trajId): Promise<string | undefined> {
    const owner = this.family.get(trajId);
    const name = ref.replace(/^blobs\//, "");
    if (!owner || !ref.startsWith("blobs/") || !BLOB_NAME.test(name)) return undefined;
    const path = join(owner.dir, "blobs", name);
    // A planted symlink is not followed: the sandbox reads blobs through this.
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return undefined;
    return readFileSync(path, "utf8");
  }

  async tail(n: number): Promise<Step[]> {
    return n <= 0 ? [] : this.steps.slice(-n);
  }

  async count(): Promise<number> {
    return this.steps.length;
  }

  async find(idOrPrefix: string, limit: number): Promise<FoundStep[]> {
    const prefix = idOrPrefix.toLowerCase();
    const out: FoundStep[] = [];
    for (const log of this.family.values()) {
      for (const step of log.steps) {
        if (out.length >= limit) return out;
        if (step.step_id.toLowerCase().startsWith(prefix)) out.push({ step, trajId: log.trajId });
      }
    }
    return out;
  }

  async search(text: string, limit: number): Promise<Step[]> {
    const q = text.toLowerCase();
    const out: Step[] = [];
    for (let i = this.steps.length - 1; i >= 0 && q && out.length < limit; i--) {
      const step = this.steps[i] as Step;
      if (stepText(step).toLowerCase().includes(q)) out.push(step);
    }
    return out;
  }

  async ofKind(kinds: readonly string[]): Promise<Step[]> {
    return this.steps.filter((s) => kinds.includes(s.type));
  }

  async fork(child: { trajId: string; name: string }): Promise<StepLog> {
    if (this.family.has(child.trajId)) throw new Error(`trajectory ${child.trajId} forked twice`);
    const dir = join(this.dir, trajDirName(child.trajId, child.name));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, TRAJECTORY_FILE);
    // Empty until the journal writes the child's first line; "wx": never over an existing trajectory.
    writeFileSync(file, "", { flag: "wx" });
    return new JsonlLog(child.trajId, file, [], this.family);
  }
}

/** The valid steps of a trajectory file; other lines (not steps, or invalid ones) skipped and counted. */
export function readJsonl(file: string): { steps: Step[]; skipped: number; openLine: boolean } {
  const text = readFileSync(file, "utf8");
  const steps: Step[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    const r = readLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    // The mind reads only valid steps: a line that is not one is skipped and counted, like one that is not a step at all.
    if (r.ok && r.valid) steps.push(r.step);
    else if (r.ok || r.reason !== "blank") skipped++;
  }
  return { steps, skipped, openLine: text.length > 0 && !text.endsWith("\n") };
}

/**
 * Open `file` as a trajectory's log. A missing or empty file is started with a
 * `trajectory` first line; its id is the trajectory's id, as in Headlong.
 */
export function openJsonlLog(file: string, opts: { ids: Ids; now: () => number }): StepLog {
  const path = resolve(file);
  if (!existsSync(path)) mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path) || lstatSync(path).size === 0) {
    const header = { type: "trajectory", step_id: opts.ids.uuid(), ts: formatTs(opts.now()), name: SH_TRAJECTORY_NAME, source: "system" };
    writeFileSync(path, `${JSON.stringify(header)}\n`);
  }
  const { steps, openLine } = readJsonl(path);
  // A file without a `trajectory` line still works; its id is then this session's own.
  const trajId = steps.find((s) => s.type === "trajectory")?.step_id ?? opts.ids.uuid();
  return new JsonlLog(trajId, path, steps, new Map(), openLine);
}
