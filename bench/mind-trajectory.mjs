// For bench/mind: read a mind's exported .tar.gz (a minimal tar reader: ustar
// names, pax `path`), and join the model calls the instant model recorded to
// the steps they led to, by the `: <n>` each reply's command carries.
import { gunzipSync } from "node:zlib";

/** The files of a .tar.gz, path → text. */
export function readTarGz(gz) {
  const tar = gunzipSync(gz);
  const files = new Map();
  const str = (at, len) => {
    const end = tar.indexOf(0, at);
    return tar.toString("utf8", at, end < 0 || end > at + len ? at + len : end);
  };
  let at = 0;
  let paxPath = null;
  while (at + 512 <= tar.length) {
    if (tar.subarray(at, at + 512).every((b) => b === 0)) break;
    const size = parseInt(str(at + 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(tar[at + 156]);
    const prefix = str(at + 257, 6) === "ustar" ? str(at + 345, 155) : "";
    const name = prefix ? `${prefix}/${str(at, 100)}` : str(at, 100);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (type === "x") {
      const m = /\d+ path=([^\n]*)\n/.exec(data.toString("utf8"));
      paxPath = m ? m[1] : null;
    } else {
      if (type === "0" || type === "\0") files.set(paxPath ?? name, data.toString("utf8"));
      paxPath = null;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** The root trajectory's steps: the one trajectory.jsonl in a top-level folder. */
export function rootSteps(files) {
  const roots = [...files.keys()].filter((p) => /^[^/]+\/trajectory\.jsonl$/.test(p));
  if (roots.length !== 1) throw new Error(`expected one root trajectory in the export, found ${roots.length}`);
  return files.get(roots[0]).split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/**
 * One row per model call: the reasoning step it produced (found by `: n`),
 * where that step sits in the trajectory (its history), its run, and the
 * exec_s of the block it ran.
 */
export function joinCalls(steps, calls) {
  const at = new Map();
  steps.forEach((s, i) => {
    const m = s.type === "reasoning" ? /^: (\d+)$/.exec(s.cmd ?? "") : null;
    if (m) at.set(Number(m[1]), i);
  });
  return calls.map((c) => {
    const i = at.get(c.n);
    if (i === undefined) return { ...c, history: null };
    const s = steps[i];
    const out = steps.slice(i + 1, i + 4).find((o) => o.type === "shell-output" && o.run_id === s.run_id);
    return { ...c, history: i, runId: s.run_id, execMs: out ? out.exec_s * 1000 : null };
  });
}

/**
 * The time between consecutive calls of one run, as the model server sees it:
 * from call n's arrival to call n+1's (the answer's streaming, the harness,
 * the block's exec and the next request's sending, all of it). The block's
 * exec is kept beside it, for a look at what is the sandbox's.
 */
export function gaps(rows) {
  const out = [];
  for (let k = 1; k < rows.length; k++) {
    const a = rows[k - 1];
    const b = rows[k];
    if (a.history === null || b.history === null || a.runId !== b.runId) continue;
    out.push({ n: a.n, history: a.history, runId: a.runId, callToCallMs: b.at - a.at, execMs: a.execMs });
  }
  return out;
}

/**
 * The floor's time between calls, measured the same way: from one bare call's
 * arrival at the server to the next one's, per shape of the answer between
 * them (the first `skip` calls open the connection and are left out).
 */
export function floorGaps(floorCalls, chunk, skip = 5) {
  const out = [];
  for (let i = skip; i + 1 < floorCalls.length; i++) if (floorCalls[i].chunk === chunk) out.push(floorCalls[i + 1].at - floorCalls[i].at);
  return out;
}

export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
  const r = (x) => Math.round(x * 100) / 100;
  return { n: s.length, median: r(q(0.5)), p90: r(q(0.9)), min: r(s[0] ?? NaN), max: r(s.at(-1) ?? NaN) };
}
