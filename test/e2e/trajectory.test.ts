// Import a Headlong-layout archive with a forked child and blobs, move around
// the fork tree, open a deep link, search, export, re-import and compare.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readArchive } from "../../lib/archive/read";
import { writeTarGz, writeZip } from "../../lib/archive/write";
import { makeHeadlongTree, XSS_IMG } from "../fixtures/headlong-tree";
import { launchChromium } from "./browser";

const baseUrl = inject("baseUrl");
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;

const tree = makeHeadlongTree({ steps: 240, withChild: true, xss: true, seed: 7 });

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  dir = await mkdtemp(join(tmpdir(), "reverie-e2e-"));
});

afterAll(async () => {
  await browser?.close();
});

async function pack(name: string, format: "tar.gz" | "zip"): Promise<string> {
  const path = join(dir, name);
  const entries = tree.files.map((f) => ({ path: f.path, data: f.data }));
  const blob = format === "zip" ? await writeZip(entries) : await new Response(writeTarGz(entries)).blob();
  await writeFile(path, new Uint8Array(await blob.arrayBuffer()));
  return path;
}

async function importFile(path: string): Promise<string> {
  await page.goto(baseUrl);
  await page.getByTestId("import-file").setInputFiles(path);
  await page.waitForURL(/\/view\/[0-9a-f-]{36}/, { timeout: 60_000 });
  await page.locator('[data-testid="step"]').first().waitFor();
  return new URL(page.url()).pathname;
}

/** Every line of every trajectory.jsonl in an archive, parsed, by path. */
async function linesOf(path: string): Promise<Map<string, unknown[]>> {
  const out = new Map<string, unknown[]>();
  const bytes = await readFile(path);
  for await (const entry of readArchive(new Blob([bytes]), { name: path })) {
    if (!entry.path.endsWith("trajectory.jsonl")) {
      await entry.skip();
      continue;
    }
    const text = await entry.text();
    out.set(entry.path.split("/").slice(-2, -1)[0] ?? "", text.split("\n").filter(Boolean).map((l) => JSON.parse(l)));
  }
  return out;
}

describe("an imported Headlong trajectory", () => {
  let viewPath: string;

  it("imports a .tar.gz with a forked child and blobs, and opens the viewer", async () => {
    viewPath = await importFile(await pack("monolith.tar.gz", "tar.gz"));
    await expect(page.getByTestId("archive-stats").textContent()).resolves.toContain(`${tree.counts[tree.rootId]! + tree.counts[tree.childId!]!} steps`);
    await expect(page.getByTestId("archive-stats").textContent()).resolves.toContain("2 trajectories");
    // The newest steps are on screen.
    await page.locator(`[data-step-id="${tree.ids.last}"]`).waitFor();
  });

  it("renders markup in any field as inert text", async () => {
    await page.goto(`${baseUrl}${viewPath}?step=${tree.ids.xss}`);
    const step = page.locator(`[data-step-id="${tree.ids.xss}"]`);
    await step.waitFor();
    await expect(step.textContent()).resolves.toContain(XSS_IMG);
    await expect(page.locator("img[src=x]").count()).resolves.toBe(0);
    await expect(page.evaluate(() => document.body.dataset.pwned ?? null)).resolves.toBeNull();
  });

  it("moves between parent and child in the fork tree", async () => {
    await page.goto(`${baseUrl}${viewPath}`);
    const forkTree = page.getByTestId("fork-tree");
    await forkTree.locator(`[data-traj-id="${tree.childId}"]`).click();
    await page.waitForURL(new RegExp(`traj=${tree.childId}`));
    const final = page.locator(`[data-step-id="${tree.ids.childFinal}"]`);
    await final.waitFor();
    await expect(final.textContent()).resolves.toContain("child-answer-three");
    await expect(forkTree.locator(`[data-traj-id="${tree.childId}"]`).getAttribute("aria-current")).resolves.toBe("page");
    await expect(page.getByTestId("traj-ancestors").textContent()).resolves.toContain("monolith");
    // And back to the parent, at the fork step.
    await page.locator('[data-step-type="trajectory"] button').first().click();
    await page.waitForURL(new RegExp(`step=${tree.ids.fork}`));
    await expect(page.locator(`[data-step-id="${tree.ids.fork}"]`).getAttribute("data-selected")).resolves.toBe("true");
  });

  it("opens a deep link to a step and loads its blob on demand", async () => {
    await page.goto(`${baseUrl}${viewPath}?step=${tree.ids.bigOutput}`);
    const step = page.locator(`[data-step-id="${tree.ids.bigOutput}"]`);
    await step.waitFor();
    await expect(step.getAttribute("data-selected")).resolves.toBe("true");
    await expect(step.textContent()).resolves.not.toContain("needle-in-blob-FOUND");
    await step.getByTestId("load-blob").click();
    await step.getByText(/needle-in-blob-FOUND/).waitFor();
  });

  it("searches content and blobs, keeping the query in the URL", async () => {
    await page.goto(`${baseUrl}${viewPath}`);
    await page.getByTestId("step-search").fill("needle-in-blob-FOUND");
    await page.getByTestId("step-search").press("Enter");
    await page.waitForURL(new RegExp(`step=${tree.ids.bigOutput}`));
    expect(new URL(page.url()).searchParams.get("q")).toBe("needle-in-blob-FOUND");
    await expect(page.getByTestId("search-status").textContent()).resolves.toBe("1 / 1");
    // A hit in the child trajectory switches to it.
    await page.getByTestId("step-search").fill("Count the files");
    await page.getByTestId("step-search").press("Enter");
    await page.waitForURL(new RegExp(`traj=${tree.childId}`));
  });

  it("exports, and the export re-imports to the same steps, byte for byte", async () => {
    await page.goto(`${baseUrl}${viewPath}`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-mind").click()]);
    const exported = join(dir, download.suggestedFilename());
    await download.saveAs(exported);
    expect(exported).toMatch(/\.tar\.gz$/);

    const original = await linesOf(await pack("again.tar.gz", "tar.gz"));
    const roundTrip = await linesOf(exported);
    expect([...roundTrip.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [folder, lines] of original) expect(roundTrip.get(folder)).toEqual(lines);

    const secondPath = await importFile(exported);
    expect(secondPath).not.toBe(viewPath);
    await expect(page.getByTestId("archive-stats").textContent()).resolves.toContain("2 trajectories");
    await page.goto(`${baseUrl}${secondPath}?step=${tree.ids.bigOutput}`);
    const step = page.locator(`[data-step-id="${tree.ids.bigOutput}"]`);
    await step.getByTestId("load-blob").click();
    await step.getByText(/needle-in-blob-FOUND/).waitFor();
  });

  it("imports a .zip too", async () => {
    await importFile(await pack("monolith.zip", "zip"));
    await expect(page.getByTestId("archive-stats").textContent()).resolves.toContain("2 trajectories");
  });
});

describe("tolerant import", () => {
  it("skips junk lines, keeps unknown kinds, and says how many were skipped", async () => {
    const root = tree.files[0]!.data.split("\n").filter(Boolean).slice(0, 30);
    const text = [root[0], "not json", "[1,2]", '{"type":"x"}', ...root.slice(1), '{"type":"strange-kind","step_id":"11111111-2222-4333-8444-555555555555","ts":"2026-11-01T09:00:00Z","detail":"kept"}', ""].join("\n");
    const path = join(dir, "junk.jsonl");
    await writeFile(path, text);
    await page.goto(baseUrl);
    await page.getByTestId("import-file").setInputFiles(path);
    await page.waitForURL(/\/view\//);
    await expect(page.getByTestId("archive-stats").textContent()).resolves.toContain("3 lines skipped");
    await page.locator('[data-step-type="strange-kind"]').waitFor();
  });

  it("a damaged archive is a clear error and leaves nothing behind", async () => {
    const path = join(dir, "broken.zip");
    await writeFile(path, new Uint8Array(5000).map((_, i) => (i * 7) % 251));
    await page.goto(baseUrl);
    const before = await countRows(page);
    await page.getByTestId("import-file").setInputFiles(path);
    await page.getByTestId("import-error").waitFor();
    await expect(page.getByTestId("import-error").textContent()).resolves.toMatch(/broken\.zip/);
    expect(await countRows(page)).toBe(before);
  });

  it("cancelling a large import leaves nothing half-imported", async () => {
    const big = makeHeadlongTree({ steps: 60_000, seed: 3 });
    const path = join(dir, "big.jsonl");
    await writeFile(path, big.files[0]!.data);
    await page.goto(baseUrl);
    const before = await countRows(page);
    await page.getByTestId("import-file").setInputFiles(path);
    await page.getByTestId("import-progress").waitFor();
    await page.getByTestId("import-cancel").click();
    await page.getByTestId("import-error").filter({ hasText: "cancelled" }).waitFor();
    expect(await countRows(page)).toBe(before);
  });
});

/** Rows of every store an import writes (steps, pages, blobs, trajectories), read with the raw IndexedDB API. */
function countRows(p: Page): Promise<number> {
  return p.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open("reverie");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const idb = open.result;
          const stores = ["steps", "pages", "blobs", "trajectories"].filter((s) => idb.objectStoreNames.contains(s));
          if (stores.length === 0) return resolve(0);
          const tx = idb.transaction(stores);
          let total = 0;
          let left = stores.length;
          for (const name of stores) {
            const req = tx.objectStore(name).count();
            req.onsuccess = () => {
              total += req.result;
              if (--left === 0) resolve(total);
            };
            req.onerror = () => reject(req.error);
          }
        };
      }),
  );
}
