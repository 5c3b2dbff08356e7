// Headlong trees (test/fixtures/headlong-tree.ts) packed the three ways
// Reverie reads them, what a tree should count as, and an in-memory import
// sink that records every call in order.
import { readArchive, writeTarGz, writeZip } from "../../../lib/archive";
import type { ImportedTrajectory, ImportSink, StepBatchItem } from "../../../lib/import/importer";
import type { Tree, TreeFile } from "../../fixtures/headlong-tree";

export type Packing = "jsonl" | "tar.gz" | "zip";

/** A stream's bytes, and the sizes of the chunks they came in. */
export async function readChunks(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array<ArrayBuffer>; chunks: number[] }> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, chunks: parts.map((p) => p.length) };
}

export async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  return (await readChunks(stream)).bytes;
}

/** The root trajectory.jsonl alone, or the whole tree as .tar.gz or .zip. */
export async function pack(files: readonly TreeFile[], packing: Packing): Promise<Blob> {
  if (packing === "jsonl") {
    const root = files.find((f) => f.path.split("/").length === 2 && f.path.endsWith("/trajectory.jsonl"));
    if (!root) throw new Error("no root trajectory.jsonl");
    return new Blob([root.data]);
  }
  if (packing === "tar.gz") return new Blob([await streamBytes(writeTarGz(files))]);
  return writeZip(files);
}

/** Every file of an archive, as text. */
export async function unpack(blob: Blob, name: string): Promise<TreeFile[]> {
  const out: TreeFile[] = [];
  for await (const entry of readArchive(blob, { name })) out.push({ path: entry.path, data: await entry.text() });
  return out;
}

/** The lines of each trajectory.jsonl, by the file's folder. */
export function linesByDir(files: readonly TreeFile[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    if (!f.path.endsWith("trajectory.jsonl")) continue;
    const dir = f.path.split("/").slice(0, -1).join("/");
    out.set(dir, f.data.split("\n").filter((l) => l !== ""));
  }
  return out;
}

/** What a tree holds, counted straight from its lines (independently of the importer). */
export function expectedCounts(tree: Tree, packing: Packing) {
  // The fixture puts the root trajectory.jsonl first; a lone .jsonl is that file alone.
  const files = packing === "jsonl" ? tree.files.slice(0, 1) : tree.files;
  const byType: Record<string, number> = {};
  const runs = new Set<string>();
  let steps = 0;
  for (const lines of linesByDir(files).values()) {
    for (const line of lines) {
      const s = JSON.parse(line) as { type: string; step_id: string; run_id?: string };
      steps++;
      byType[s.type] = (byType[s.type] ?? 0) + 1;
      if (s.type === "shellm-run") runs.add(s.step_id);
      else if (s.run_id) runs.add(s.run_id);
    }
  }
  return {
    steps,
    skipped: 0,
    byType,
    runs: runs.size,
    forks: byType.fork ?? 0,
    trajectories: linesByDir(files).size,
  };
}

export type SinkCall =
  | { call: "trajectory"; t: ImportedTrajectory }
  | { call: "steps"; trajId: string; count: number }
  | { call: "blob"; path: string; length: number }
  | { call: "mind"; json: unknown };

/** Records every sink call in order, and keeps what it was given. */
export class MemorySink implements ImportSink {
  readonly calls: SinkCall[] = [];
  readonly trajectories: ImportedTrajectory[] = [];
  /** The steps each trajectory received, in order. */
  readonly received = new Map<string, StepBatchItem[]>();
  readonly blobs = new Map<string, string>();
  readonly minds: unknown[] = [];
  /** Called at the end of each steps call (to abort, or fail, mid-import). */
  afterSteps: (() => void) | null = null;

  async trajectory(t: ImportedTrajectory): Promise<void> {
    this.calls.push({ call: "trajectory", t });
    this.trajectories.push(t);
    this.received.set(t.trajId, []);
  }

  async steps(trajId: string, batch: StepBatchItem[]): Promise<void> {
    this.calls.push({ call: "steps", trajId, count: batch.length });
    const list = this.received.get(trajId);
    if (!list) throw new Error(`steps for ${trajId} before its trajectory`);
    list.push(...batch);
    this.afterSteps?.();
  }

  async blob(path: string, text: string): Promise<void> {
    this.calls.push({ call: "blob", path, length: text.length });
    this.blobs.set(path, text);
  }

  async mind(json: unknown): Promise<void> {
    this.calls.push({ call: "mind", json });
    this.minds.push(json);
  }

  /** The raw lines each trajectory received, by trajectory id. */
  rawLines(): Map<string, string[]> {
    return new Map([...this.received].map(([id, items]) => [id, items.map((i) => i.raw)]));
  }
}
