// The sandbox's hold on /workspace/self (issue 24). The mind may change its
// own texts, but self/ stays a folder of plain files at their own paths (what
// the harness reads is what is there, and each change is one it can record as
// a `self-edit` step), and a flood of writes to it fails in the shell. This
// wraps the filesystem bash is given; the harness writes self/ through the
// bare one. Each changing call is handed on with its paths where they land
// (landing-path.ts), so what is judged here is what happens.
import type { IFileSystem } from "just-bash";
import { landingPath } from "../landing-path";
import { FIXED_LIMITS, WORKSPACE } from "../limits";
import { SELF_DIR, SELF_FILES, under, WATCHERS_DIR } from "./paths";

/** When the writes to self/ of the last minute went in (ms): one record per sandbox, shared by its sessions. */
export interface SelfWrites {
  times: number[];
}

/**
 * Changing calls made through a guard over a filesystem that reached self/
 * (a path in it, or a folder holding it), counted as each one ends, by the
 * filesystem guarded: every session and watcher run of its sandbox counts in
 * one place, which whoever reads self/ (the self ledger, through
 * fsSelfFiles) asks whether anything may have changed since it last looked.
 * The harness's own writes go to the bare filesystem, and are not counted:
 * it records them as it makes them.
 */
const changesOf = new WeakMap<IFileSystem, { n: number }>();

/** How many changing calls have reached self/ through guards over `fs` so far. */
export const selfChanges = (fs: IFileSystem): number => changesOf.get(fs)?.n ?? 0;

export interface GuardedFs {
  fs: IFileSystem;
  /** How many writes the rate turned away since the last call (they get one error step). */
  takeRefused(): number;
  /** What the refusals since the last call said, once each, so a command that hides its errors (rm -f, tee) still leaves the mind a note. */
  takeMessages(): string[];
}

type Method = "writeFile" | "appendFile" | "mkdir" | "rm" | "cp" | "mv" | "chmod" | "symlink" | "link" | "utimes";
const CHANGING = new Set<string>(["writeFile", "appendFile", "mkdir", "rm", "cp", "mv", "chmod", "symlink", "link", "utimes"] satisfies Method[]);

const MINUTE_MS = 60_000;
const FILES = SELF_FILES.map((f) => `${SELF_DIR}/${f}`);
/** What must stay where it is, outermost first (so a refusal names the outermost). */
const KEPT = [SELF_DIR, WATCHERS_DIR, ...FILES];
const KEPT_DIRS = [SELF_DIR, WATCHERS_DIR];
/** Kept messages at most, per take: a flood of distinct ones is still a few lines. */
const MAX_MESSAGES = 20;

/** A path under self/ as the mind names it from its workspace ("self/instructions.md", "self/watchers/"). Never absolute: just-bash's commands blank out host-like paths in error messages. */
const nameOf = (path: string) => path.slice(WORKSPACE.length + 1) + (KEPT_DIRS.includes(path) ? "/" : "");
const NO_LINKS = "self/ holds plain files only: no links";

/** A refused call, thrown the way a filesystem throws so each command prints it as it prints its errors. The text avoids "EPERM", "ENOENT" and "not empty": some commands print their own line when they see those. */
class Refused extends Error {
  constructor(
    message: string,
    readonly code: "EPERM" | "EACCES",
  ) {
    super(message);
  }
}

/** Whether a call on `path` (where it lands) may change what self/ holds: a path in it, or a folder it is in (a copy or move onto /workspace). */
const touchesSelf = (path: unknown) => typeof path === "string" && (under(path, SELF_DIR) || under(SELF_DIR, path));

/** A call's paths where they land, and the path under self/ it writes (null: none). */
interface Plan {
  args: unknown[];
  writes: string | null;
}

/** `fs` as bash should see it: changes that would move, remove or link self/ refused, and writes to it held to a rate. */
export function guardSelf(fs: IFileSystem, opts: { now: () => number; writes?: SelfWrites }): GuardedFs {
  const writes = opts.writes ?? { times: [] };
  let changes = changesOf.get(fs);
  if (!changes) changesOf.set(fs, (changes = { n: 0 }));
  const counted = changes;
  let refused = 0;
  const messages = new Set<string>();

  const refuse = (message: string, code: Refused["code"] = "EPERM"): never => {
    if (messages.size < MAX_MESSAGES) messages.add(message);
    throw new Refused(message, code);
  };
  const land = (p: unknown, follow = false): Promise<unknown> => (typeof p === "string" ? landingPath(fs, p, follow) : Promise.resolve(p));
  const kind = (p: string) => fs.lstat(p).then(
    (s) => (s.isSymbolicLink ? "link" : s.isDirectory ? "dir" : "file"),
    () => null,
  );

  /** Refuse a call that would remove, move or replace `path` while a kept path exists at or under it. */
  async function keep(path: string) {
    for (const kept of KEPT) if (under(kept, path) && (await kind(kept))) refuse(`${nameOf(kept)} can be changed, not removed or moved`);
  }

  async function holdsLink(path: string): Promise<boolean> {
    const k = await kind(path);
    if (k === "link") return true;
    if (k !== "dir") return false;
    for (const name of await fs.readdir(path)) if (await holdsLink(`${path === "/" ? "" : path}/${name}`)) return true;
    return false;
  }

  /** A copy or move of `src` to `dest`: it may bring plain files and folders into self/, never replace self/ or its folders. */
  async function arrive(src: unknown, dest: unknown) {
    if (typeof src !== "string" || typeof dest !== "string") return;
    for (const dir of KEPT_DIRS) if (under(dir, dest) && (await kind(dir))) refuse(`${nameOf(dir)} can be changed, not replaced`);
    if (!under(dest, SELF_DIR)) return;
    if (await holdsLink(src)) refuse(NO_LINKS);
    if (FILES.includes(dest) && (await kind(src)) === "dir") refuse(`${nameOf(dest)} stays a plain file`);
  }

  async function plan(method: Method, args: unknown[]): Promise<Plan> {
    const [a, b] = args;
    const inSelf = (p: unknown) => (typeof p === "string" && under(p, SELF_DIR) ? p : null);
    switch (method) {
      case "writeFile":
      case "appendFile": {
        // A write follows a link at the end, as bash's does.
        const path = await land(a, true);
        // InMemoryFs lets a file replace a folder, leaving what was in it behind, unseen.
        if (typeof path === "string" && (under(SELF_DIR, path) || under(path, SELF_DIR)) && (await kind(path)) === "dir") {
          await keep(path);
          if (under(path, SELF_DIR)) refuse(`${nameOf(path)} is a folder; a file cannot replace it`);
        }
        return { args: [path, ...args.slice(1)], writes: inSelf(path) };
      }
      case "rm": {
        const path = await land(a);
        if (typeof path === "string") await keep(path);
        return { args: [path, ...args.slice(1)], writes: inSelf(path) };
      }
      case "mv": {
        const [src, dest] = [await land(a), await land(b)];
        if (typeof src === "string") await keep(src);
        await arrive(src, dest);
        return { args: [src, dest], writes: inSelf(dest) ?? inSelf(src) };
      }
      case "cp": {
        const [src, dest] = [await land(a), await land(b)];
        await arrive(src, dest);
        return { args: [src, dest, ...args.slice(2)], writes: inSelf(dest) };
      }
      case "symlink": {
        const path = await land(b);
        if (inSelf(path)) refuse(NO_LINKS);
        return { args: [a, path], writes: null };
      }
      case "link": {
        const [from, to] = [await land(a), await land(b)];
        if (inSelf(from) || inSelf(to)) refuse(NO_LINKS);
        return { args: [from, to], writes: null };
      }
      case "utimes": {
        const path = await land(a, true);
        return { args: [path, ...args.slice(1)], writes: inSelf(path) };
      }
      case "mkdir":
      case "chmod": {
        const path = await land(a);
        return { args: [path, ...args.slice(1)], writes: inSelf(path) };
      }
    }
  }

  /**
   * Take a slot in the minute's writes, or refuse. A redirect opens its file
   * with an empty write and then writes what the command printed (two calls
   * for `echo x > f`, one for `: > f`); an empty write takes its slot only
   * when one is left after it, so a redirect is never cut between the two
   * and a file is never left empty by the rate.
   */
  function admit(path: string, content: unknown) {
    const now = opts.now();
    while (writes.times.length > 0 && (writes.times[0] ?? 0) <= now - MINUTE_MS) writes.times.shift();
    const opening = content === "" || (content instanceof Uint8Array && content.length === 0);
    const limit = FIXED_LIMITS.selfWritesPerMinute;
    if (writes.times.length + (opening ? 2 : 1) > limit) {
      refused++;
      refuse(`${nameOf(path)}: refused: self/ takes at most ${limit} writes a minute; this one was not made`, "EACCES");
    }
    writes.times.push(now);
  }

  const guarded = new Proxy(fs, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !CHANGING.has(prop)) return value.bind(target);
      const method = prop as Method;
      return async (...args: unknown[]) => {
        const { args: landed, writes: path } = await plan(method, args);
        if (path !== null) admit(path, method === "writeFile" || method === "appendFile" ? args[1] : undefined);
        const paths = method === "cp" || method === "mv" || method === "link" ? landed.slice(0, 2) : method === "symlink" ? landed.slice(1, 2) : landed.slice(0, 1);
        if (!paths.some(touchesSelf)) return value.apply(target, landed);
        // Counted once the call is over, done or failed: a reader that saw the count before it looked again cannot miss it.
        try {
          return await value.apply(target, landed);
        } finally {
          counted.n++;
        }
      };
    },
  }) as IFileSystem;

  return {
    fs: guarded,
    takeRefused() {
      const n = refused;
      refused = 0;
      return n;
    },
    takeMessages() {
      const all = [...messages];
      messages.clear();
      return all;
    },
  };
}
