// CPU time by thread, for bench/mind: what each thread of the browser (and the
// model server, this process) spent on a core over a window, from Linux's
// /proc/<pid>/task/<tid>/schedstat (nanoseconds on a core, and waiting for
// one). On a shared two-core machine a timed figure moves with everyone's
// load; the CPU time a window costs moves much less, so it says which change
// took work away and from which thread. Linux only: elsewhere it reports nothing.
import { existsSync, readdirSync, readFileSync } from "node:fs";

const read = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

/** pid → parent pid, for every process. */
function parents() {
  const out = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const stat = read(`/proc/${d}/stat`);
    // The command name sits in parentheses and may hold spaces: the fields after the last ")" are fixed.
    const m = stat && /\) \S+ (\d+)/.exec(stat.slice(stat.lastIndexOf(")")));
    if (m) out.set(Number(d), Number(m[1]));
  }
  return out;
}

/** A process's kind, from its command line: Chromium's browser, renderer, gpu, network, utility, zygote; or the app (its server). */
function kindOf(pid) {
  // Chromium rewrites its processes' titles: the arguments may come joined by spaces, not NULs.
  const cmd = (read(`/proc/${pid}/cmdline`) ?? "").split(/[\0 ]/);
  if (!/chrom/i.test(cmd[0] ?? "")) return "app";
  const type = cmd.find((a) => a.startsWith("--type="))?.slice(7);
  if (!type) return "browser";
  if (type === "utility") return cmd.some((a) => a.includes("NetworkService")) ? "network" : "utility";
  if (type === "gpu-process") return "gpu";
  return type;
}

/** Thread names with their numbers taken off (ThreadPoolForegroundWorker 3 and 4 are one pool). */
const threadName = (comm) => comm.trim().replace(/[\s_-]*\d+$/, "") || "?";

/** On-core and waiting nanoseconds of every thread of `root` (this process: the model server) and its descendants (the browser, the app). */
export function cpuSnapshot(root = process.pid) {
  const out = new Map();
  if (!existsSync("/proc/self/task") || !root) return out;
  const ppid = parents();
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of ppid) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of tree) {
    const kind = pid === process.pid ? "model-server" : kindOf(pid);
    let tasks;
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      const s = read(`/proc/${pid}/task/${tid}/schedstat`);
      if (!s) continue;
      const [run, wait] = s.split(" ").map(Number);
      const key = `${kind}:${threadName(read(`/proc/${pid}/task/${tid}/comm`) ?? "?")}`;
      const was = out.get(key) ?? { run: 0, wait: 0 };
      out.set(key, { run: was.run + run, wait: was.wait + wait, id: `${pid}/${tid}` });
      // Each thread by its own id too, so one that ended between two snapshots is not counted as negative time.
      out.set(`#${pid}/${tid}`, { run, wait, key });
    }
  }
  return out;
}

/**
 * CPU ms per iteration between two snapshots, by "kind:thread", busiest first:
 * { key, run, wait } (wait: ready to run, with no core free). Threads that
 * came or went between them count only what they did inside the window.
 */
export function cpuPerIteration(before, after, iterations) {
  const sums = new Map();
  for (const [id, a] of after) {
    if (!id.startsWith("#")) continue;
    const b = before.get(id) ?? { run: 0, wait: 0 };
    const s = sums.get(a.key) ?? { run: 0, wait: 0 };
    sums.set(a.key, { run: s.run + a.run - b.run, wait: s.wait + a.wait - b.wait });
  }
  const ms = (ns) => Math.round((ns / 1e6 / iterations) * 1000) / 1000;
  return [...sums]
    .map(([key, s]) => ({ key, run: ms(s.run), wait: ms(s.wait) }))
    .filter((r) => r.run > 0.005 || r.wait > 0.005)
    .sort((a, b) => b.run - a.run);
}

/** The same, summed by process kind (browser, renderer, gpu, network, model-server…). */
export function byKind(rows) {
  const out = new Map();
  for (const r of rows) {
    const k = r.key.split(":")[0];
    const s = out.get(k) ?? { run: 0, wait: 0 };
    out.set(k, { run: s.run + r.run, wait: s.wait + r.wait });
  }
  return Object.fromEntries([...out].map(([k, s]) => [k, { run: Math.round(s.run * 1000) / 1000, wait: Math.round(s.wait * 1000) / 1000 }]));
}
