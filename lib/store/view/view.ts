// Reads for the trajectory viewer, over either storage: a live mind's step
// rows, or an imported archive's pages. The newest entries come first (so
// the viewer shows something at once), then every older one in pages; bodies,
// blobs and search on demand.
import Dexie from "dexie";
import { keptLine, readLine, type StepLine } from "../../trajectory/headlong";
import { entryOf, LIVE_MS, type IndexEntry } from "../../trajectory/rows";
import type { SearchHit, StepSource } from "../../trajectory/source";
import type { PageRow, ReverieDb, StepRow } from "../db/db";
import { getBlob, rowLines, watchRows } from "../steps/steps";
import { RESULTS_BLOB } from "../minds/results";
import { isSetAside, passingOver, setAside, withoutSetAside } from "../steps/aside";

const PAGE = 5000;
const SEARCH_LIMIT = 5000;

/** What both local sources read the same way. */
const localReads = (db: ReverieDb, owner: string): Pick<StepSource, "trajectories" | "blob"> => ({
  trajectories: () => db.trajectories.where("mind_id").equals(owner).toArray(),
  blob: (traj, ref) => getBlob(db, owner, traj?.dir ? `${traj.dir}/${ref}` : ref),
});

/** Blob files whose text contains the query; steps naming them count as hits. */
async function blobRefsMatching(db: ReverieDb, owner: string, q: string): Promise<string[]> {
  const files: string[] = [];
  await db.blobs
    .where("[mind_id+name]")
    .between([owner, Dexie.minKey], [owner, Dexie.maxKey])
    .each((b) => {
      // An archive's results.json is not a step's blob: no step names it.
      if (b.name !== RESULTS_BLOB && b.text.toLowerCase().includes(q)) files.push(`blobs/${b.name.split("/").pop() ?? b.name}`);
    });
  return files;
}

const matches = (json: string, q: string, refs: string[]) => json.toLowerCase().includes(q) || (refs.length > 0 && refs.some((r) => json.includes(r)));

// ---- a live mind: one row per step ----------------------------------------

/**
 * Lines the newest reads brought, kept for `bodies`: a followed stream asks
 * for the bodies of the steps its watch has just read whole, and reading
 * them again was an IndexedDB request per step (two per model call on a
 * fast mind, each a task in the browser process) and a second parse.
 */
const RECENT_LINES = 512;

export function rowSource(db: ReverieDb, owner: string): StepSource {
  // A trajectory's rows, without those a pull set aside (their copies read in the trajectory they were set aside in).
  const rowsOf = (traj: string, from: unknown, to: unknown, includeTo = true) => db.steps.where("[mind_id+traj_id+seq]").between([owner, traj, from], [owner, traj, to], true, includeTo);
  const range = async (traj: string, from: unknown, to: unknown, includeTo = true) => passingOver(rowsOf(traj, from, to, includeTo), await setAside(db, owner));
  const recent = new Map<number, StepLine>();
  // The viewer shows every kept line: a valid step, or an invalid line as what it is.
  const entries = (rows: StepRow[], keep: boolean): IndexEntry[] =>
    rowLines(rows).map(({ seq, line }) => {
      if (keep) recent.set(seq, line);
      return entryOf(seq, line);
    });
  const trim = () => {
    // A Map iterates in insertion order: the oldest lines go first.
    for (const seq of recent.keys()) {
      if (recent.size <= RECENT_LINES) break;
      recent.delete(seq);
    }
  };
  return {
    root: owner,
    ...localReads(db, owner),
    // Read at most every LIVE_MS: the viewer shows new steps at that pace, and a fast mind's every write re-ran the read and its parse on the page's main thread.
    watch: (traj, afterSeq, onEntries) =>
      watchRows(
        afterSeq,
        // The steps are read first: in Chromium a live query that read the asides first and the steps after its await
        // was not run again when steps were added (the viewer's stream stopped at what it first showed).
        async (seq) => withoutSetAside(await rowsOf(traj, seq + 1, Dexie.maxKey).toArray(), await setAside(db, owner)),
        (rows) => {
          const fresh = entries(rows, true);
          trim();
          onEntries(fresh);
        },
        { everyMs: LIVE_MS },
      ),
    async newest(traj, n) {
      const rows = await (await range(traj, Dexie.minKey, Dexie.maxKey)).reverse().limit(n).toArray();
      const out = entries(rows.reverse(), true);
      trim();
      return out;
    },
    async older(traj, beforeSeq, onPage, signal) {
      let from = 0;
      for (;;) {
        signal?.throwIfAborted();
        const rows = await (await range(traj, from, beforeSeq, false)).limit(PAGE).toArray();
        if (rows.length) onPage(entries(rows, false));
        if (rows.length < PAGE) return;
        from = (rows[rows.length - 1]?.seq ?? beforeSeq) + 1;
      }
    },
    async bodies(seqs) {
      const out = new Map<number, StepLine>();
      const missing: number[] = [];
      for (const seq of seqs) {
        const line = recent.get(seq);
        if (line) out.set(seq, line);
        else missing.push(seq);
      }
      if (missing.length === 0) return out;
      const rows = (await db.steps.bulkGet(missing)).filter((r): r is StepRow => r !== undefined && r.mind_id === owner);
      for (const { seq, line } of rowLines(rows)) out.set(seq, line);
      return out;
    },
    async locate(stepId) {
      const row = await db.steps.get({ mind_id: owner, step_id: stepId.toLowerCase() });
      if (!row?.seq) return null;
      // A step a pull set aside is found where it reads now: its copy.
      const aside = await db.asides.get([owner, row.seq]);
      if (!aside) return { seq: row.seq, traj: row.traj_id };
      const copy = await db.steps.get({ mind_id: owner, step_id: aside.copy_id });
      return copy?.seq ? { seq: copy.seq, traj: copy.traj_id } : null;
    },
    async search(query, opts = {}) {
      const q = query.toLowerCase();
      const limit = opts.limit ?? SEARCH_LIMIT;
      const refs = await blobRefsMatching(db, owner, q);
      const aside = await setAside(db, owner);
      const hits: SearchHit[] = [];
      let from = 0;
      for (;;) {
        opts.signal?.throwIfAborted();
        const rows = await db.steps.where("[mind_id+seq]").between([owner, from], [owner, Dexie.maxKey], true, true).limit(PAGE).toArray();
        for (const r of rows) {
          if (isSetAside(aside, r.seq) || !matches(r.json, q, refs)) continue;
          hits.push({ seq: r.seq ?? 0, id: r.step_id, traj: r.traj_id });
          if (hits.length >= limit) return { hits, truncated: true };
        }
        if (rows.length < PAGE) return { hits, truncated: false };
        from = (rows[rows.length - 1]?.seq ?? from) + 1;
      }
    },
  };
}

// ---- an imported archive: pages of lines ----------------------------------

/** A page's kept lines (an import keeps invalid ones, byte for byte) with their seqs. */
function pageLines(page: PageRow): { seq: number; line: StepLine }[] {
  const out: { seq: number; line: StepLine }[] = [];
  const lines = page.lines.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = keptLine(readLine(lines[i] ?? ""));
    if (line) out.push({ seq: page.first + i, line });
  }
  return out;
}

const pageEntries = (page: PageRow) => pageLines(page).map(({ seq, line }) => entryOf(seq, line));

/** Let the page breathe between chunks of parsing. */
const yieldToPage = () => new Promise((r) => setTimeout(r, 0));

export function pageSource(db: ReverieDb, owner: string): StepSource {
  const pagesOf = (traj: string) => db.pages.where("[mind_id+traj_id+page]").between([owner, traj, Dexie.minKey], [owner, traj, Dexie.maxKey]);
  const allPages = () => db.pages.where("[mind_id+first]").between([owner, Dexie.minKey], [owner, Dexie.maxKey]);
  return {
    ...localReads(db, owner),
    async newest(traj, n) {
      const out: IndexEntry[][] = [];
      let count = 0;
      await pagesOf(traj)
        .reverse()
        .until(() => count >= n)
        .each((p) => {
          const e = pageEntries(p);
          out.unshift(e);
          count += e.length;
        });
      return out.flat().slice(-n);
    },
    async older(traj, beforeSeq, onPage, signal) {
      const pages = await pagesOf(traj).filter((p) => p.first < beforeSeq).toArray();
      for (const p of pages) {
        signal?.throwIfAborted();
        onPage(pageEntries(p).filter((e) => e.seq < beforeSeq));
        await yieldToPage();
      }
    },
    async bodies(seqs) {
      const out = new Map<number, StepLine>();
      const want = new Set(seqs);
      const sorted = [...want].sort((a, b) => a - b);
      const seen = new Set<string>();
      for (const seq of sorted) {
        if (out.has(seq)) continue;
        const page = await db.pages.where("[mind_id+first]").between([owner, Dexie.minKey], [owner, seq], true, true).last();
        if (!page || seen.has(`${page.traj_id}:${page.page}`)) continue;
        seen.add(`${page.traj_id}:${page.page}`);
        for (const { seq: s, line } of pageLines(page)) if (want.has(s)) out.set(s, line);
      }
      return out;
    },
    async locate(stepId) {
      const id = stepId.toLowerCase();
      let found: { seq: number; traj: string } | null = null;
      await allPages()
        .until(() => found !== null)
        .each((p) => {
          const at = p.ids.split(",").indexOf(id);
          if (at >= 0) found = { seq: p.first + at, traj: p.traj_id };
        });
      return found;
    },
    async search(query, opts = {}) {
      const q = query.toLowerCase();
      const limit = opts.limit ?? SEARCH_LIMIT;
      const refs = await blobRefsMatching(db, owner, q);
      const hits: SearchHit[] = [];
      let truncated = false;
      await allPages()
        .until(() => truncated || (opts.signal?.aborted ?? false))
        .each((p) => {
          const lines = p.lines.split("\n");
          const ids = p.ids.split(",");
          for (let i = 0; i < lines.length && !truncated; i++) {
            if (!matches(lines[i] ?? "", q, refs)) continue;
            hits.push({ seq: p.first + i, id: ids[i] ?? "", traj: p.traj_id });
            truncated = hits.length >= limit;
          }
        });
      opts.signal?.throwIfAborted();
      return { hits, truncated };
    },
  };
}
