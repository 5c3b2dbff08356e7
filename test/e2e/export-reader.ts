// The whole trajectory of a mind, read the way a person gets it: the page's
// Export button downloads a .tar.gz, which the app's own archive reader opens.
// Every line is parsed with the step schema, never cast.
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { readArchive } from "@/lib/archive";
import { classifyPath } from "@/lib/trajectory/headlong";
import { parseStep, type Step } from "@/lib/trajectory/schema";

export interface ExportedTrajectory {
  dir: string;
  steps: Step[];
  /** Lines that did not parse as steps (there should be none). */
  bad: string[];
}

/** Click Export and read the download: every trajectory in it, in file order. */
export async function exportTrajectories(page: Page): Promise<ExportedTrajectory[]> {
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), page.getByTestId("export-mind").click()]);
  return readExport(await readFile(await download.path()), download.suggestedFilename());
}

/** The trajectories of an export file's bytes. */
export async function readExport(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<ExportedTrajectory[]> {
  const out: ExportedTrajectory[] = [];
  for await (const entry of readArchive(new Blob([bytes]), { name })) {
    const role = classifyPath(entry.path);
    if (role.kind !== "trajectory") {
      await entry.skip();
      continue;
    }
    const steps: Step[] = [];
    const bad: string[] = [];
    for (const line of (await entry.text()).split("\n")) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        bad.push(line);
        continue;
      }
      const parsed = parseStep(value);
      if (parsed.ok) steps.push(parsed.step);
      else bad.push(`${parsed.error}: ${line.slice(0, 200)}`);
    }
    out.push({ dir: role.dir, steps, bad });
  }
  return out;
}

/** The mind's own trajectory (the one at the top, not a nested run's). */
export function mainTrajectory(all: ExportedTrajectory[]): ExportedTrajectory {
  const top = all.filter((t) => !t.dir.includes("/"));
  if (top.length !== 1) throw new Error(`expected one top-level trajectory in the export, found ${top.map((t) => t.dir).join(", ") || "none"}`);
  return top[0] as ExportedTrajectory;
}

/** Export from the page and return the mind's own trajectory. */
export async function exportMainTrajectory(page: Page): Promise<ExportedTrajectory> {
  return mainTrajectory(await exportTrajectories(page));
}
