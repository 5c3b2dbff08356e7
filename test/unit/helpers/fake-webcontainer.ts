// FAKE — a stand-in for @webcontainer/api's WebContainer, for tests only: the
// surface the runtime uses (lib/shell/webcontainer/api.ts) over an in-memory
// filesystem, and a `spawn` that plays a few scripted programs. It is not Node.
//
//   node -e "<statements>"  /  node <file> [args]   a tiny subset of JS, statements split on ";":
//     console.log(E)  process.stdout.write(E)  fs.writeFileSync(S, E)  fs.rmSync(S)
//     process.exit(N)  while(true){}  (never ends, ignores kill)
//     setInterval(()=>STATEMENT)  (repeats until killed; without a statement it only waits)
//   E: "text" | 'text' | "x".repeat(N) | process.cwd() | process.argv[N] | process.env.NAME | fs.readFileSync(S,"utf8")
//   npm install <pkg>   writes node_modules/<pkg> and package.json, prints a spinner then "added 1 package"
//   npx <pkg> [args]    prints "<pkg> <args>"
//   anything else       "jsh: command not found: <name>", exit 127
// node, npm and npx first read each file NODE_OPTIONS preloads (--require F, -r F), as
// Node does, into their process's `preloaded`; one that is missing ends them as Node would.
import type { BootFn, DirEntLike, WebContainerFsLike, WebContainerLike, WebContainerProcessLike } from "../../../lib/shell/webcontainer/api";

const KILLED = 143;
const enc = new TextEncoder();
const dec = new TextDecoder();

export interface Spawned {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

class FakeFs implements WebContainerFsLike {
  readonly files = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>([""]);
  writes = 0;
  torn = false;

  constructor(private readonly workdir: string) {}

  /** Relative to the workdir, as the real fs resolves it. */
  norm(path: string): string {
    const p = path.startsWith(`${this.workdir}/`) ? path.slice(this.workdir.length + 1) : path === this.workdir ? "" : path;
    return p.replace(/^\.(\/|$)/, "").replace(/\/+$/, "");
  }

  private live(): void {
    if (this.torn) throw new Error("WebContainer is torn down");
  }

  async readFile(path: string): Promise<Uint8Array> {
    this.live();
    const data = this.files.get(this.norm(path));
    if (!data) throw new Error(`ENOENT: no such file, open '${path}'`);
    return data.slice();
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    this.live();
    const p = this.norm(path);
    const parent = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "";
    if (!this.dirs.has(parent)) throw new Error(`ENOENT: no such directory, open '${path}'`);
    this.files.set(p, typeof data === "string" ? enc.encode(data) : data.slice());
    this.writes++;
  }

  async mkdir(path: string): Promise<string> {
    this.live();
    const parts = this.norm(path).split("/").filter(Boolean);
    for (let i = 1; i <= parts.length; i++) this.dirs.add(parts.slice(0, i).join("/"));
    return path;
  }

  async readdir(path: string): Promise<DirEntLike[]> {
    this.live();
    const dir = this.norm(path);
    if (!this.dirs.has(dir)) throw new Error(`ENOENT: no such directory, scandir '${path}'`);
    const prefix = dir === "" ? "" : `${dir}/`;
    const child = (p: string) => (p.startsWith(prefix) && p !== dir && !p.slice(prefix.length).includes("/") ? p.slice(prefix.length) : null);
    const names = new Map<string, boolean>();
    for (const d of this.dirs) if (d !== "" && child(d)) names.set(child(d) as string, true);
    for (const f of this.files.keys()) if (child(f)) names.set(child(f) as string, false);
    return [...names].sort(([a], [b]) => a.localeCompare(b)).map(([name, isDir]) => ({ name, isFile: () => !isDir, isDirectory: () => isDir }));
  }

  async rm(path: string, options?: { force?: boolean; recursive?: boolean }): Promise<void> {
    this.live();
    const p = this.norm(path);
    const under = (k: string) => k === p || k.startsWith(`${p}/`);
    const hit = [...this.files.keys()].some(under) || this.dirs.has(p);
    if (!hit && !options?.force) throw new Error(`ENOENT: no such file or directory, rm '${path}'`);
    for (const k of [...this.files.keys()]) if (under(k)) this.files.delete(k);
    for (const d of [...this.dirs]) if (under(d) && d !== "") this.dirs.delete(d);
  }
}

class FakeProcess implements WebContainerProcessLike {
  readonly output: ReadableStream<string>;
  readonly exit: Promise<number>;
  killed = false;
  private controller!: ReadableStreamDefaultController<string>;
  private settle!: (code: number) => void;
  private closed = false;
  /** Repeated on every read until killed (a flood of output). */
  repeat: (() => string) | null = null;
  ignoresKill = false;
  /** The text of each file NODE_OPTIONS preloaded, in order. */
  readonly preloaded: string[] = [];

  constructor() {
    this.exit = new Promise((r) => (this.settle = r));
    this.output = new ReadableStream<string>(
      {
        start: (c) => void (this.controller = c),
        pull: (c) => {
          if (this.repeat && !this.closed) c.enqueue(this.repeat());
        },
        cancel: () => void (this.closed = true),
      },
      { highWaterMark: 0 },
    );
  }

  write(text: string): void {
    if (!this.closed) this.controller.enqueue(text);
  }

  end(code: number): void {
    // The reader may have cancelled the stream already (it stopped reading at its cap).
    if (!this.closed) this.controller.close();
    this.closed = true;
    this.settle(code);
  }

  kill(): void {
    this.killed = true;
    if (!this.ignoresKill) this.end(KILLED);
  }
}

export class FakeWebContainer implements WebContainerLike {
  readonly workdir = "/home/reverie";
  readonly fs: FakeFs;
  readonly spawned: Spawned[] = [];
  readonly processes: FakeProcess[] = [];
  torn = false;
  private readonly errorListeners = new Set<(e: { message: string }) => void>();

  constructor() {
    this.fs = new FakeFs(this.workdir);
  }

  on(_event: "error", listener: (e: { message: string }) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** An internal error, as the real one reports it. */
  emitError(message: string): void {
    for (const l of this.errorListeners) l({ message });
  }

  teardown(): void {
    this.torn = true;
    this.fs.torn = true;
  }

  async spawn(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<WebContainerProcessLike> {
    if (this.torn) throw new Error("WebContainer is torn down");
    const cwd = this.fs.norm(options.cwd ?? "");
    this.spawned.push({ command, args, cwd, env: options.env ?? {} });
    const proc = new FakeProcess();
    this.processes.push(proc);
    queueMicrotask(() => void this.play(proc, command, args, cwd, options.env ?? {}).catch((e: Error) => (proc.write(`${e.message}\r\n`), proc.end(1))));
    return proc;
  }

  private async play(proc: FakeProcess, command: string, args: string[], cwd: string, env: Record<string, string>): Promise<void> {
    // Container-relative, as the fs takes it: absolute paths are under the workdir.
    const at = (p: string) => (p.startsWith("/") ? this.fs.norm(p) : cwd === "" ? p : `${cwd}/${p}`);
    if (["node", "npm", "npx"].includes(command)) {
      for (const file of preloads(env.NODE_OPTIONS ?? "")) {
        const data = this.fs.files.get(at(file));
        if (!data) {
          proc.write(`node:internal/modules/cjs/loader
Error: Cannot find module '${file}'
`);
          return proc.end(1);
        }
        proc.preloaded.push(dec.decode(data));
      }
    }
    if (command === "npm" && args[0] === "install" && args[1]) {
      const pkg = args[1];
      await this.fs.mkdir(at(`node_modules/${pkg}`));
      await this.fs.writeFile(at(`node_modules/${pkg}/index.js`), "module.exports = 1;\n");
      await this.fs.writeFile(at("package.json"), `{"dependencies":{"${pkg}":"1.0.0"}}\n`);
      proc.write("\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K");
      proc.write("\r\nadded 1 package in 1s\r\n");
      return proc.end(0);
    }
    if (command === "npx" && args[0]) {
      proc.write(`${args.join(" ")}\r\n`);
      return proc.end(0);
    }
    if (command !== "node") {
      proc.write(`jsh: command not found: ${command}\r\n`);
      return proc.end(127);
    }
    let code: string;
    let argv: string[];
    if (args[0] === "-e") {
      code = args[1] ?? "";
      argv = ["node", ...args.slice(2)];
    } else {
      code = dec.decode(await this.fs.readFile(at(args[0] ?? "")));
      argv = ["node", `${this.workdir}/${at(args[0] ?? "")}`, ...args.slice(1)];
    }
    const ctx = { proc, at, argv, env, cwd: cwd === "" ? this.workdir : `${this.workdir}/${cwd}` };
    for (const statement of code.split(";").map((s) => s.trim()).filter(Boolean)) {
      if (statement === "while(true){}") {
        proc.ignoresKill = true;
        return; // never ends
      }
      const every = statement.match(/^setInterval\(\(\)=>(.*?)(?:,\s*\d+)?\)$/);
      if (every) {
        const body = every[1]?.replace(/^\{\}$/, "") ?? "";
        if (body) {
          // Output on demand, as fast as it is read, until killed.
          const out = this.statementOutput(body, ctx);
          proc.repeat = () => out;
          proc.write(out);
        }
        return;
      }
      const exit = await this.run(statement, ctx);
      if (exit !== null) return proc.end(exit);
    }
    proc.end(0);
  }

  private statementOutput(statement: string, ctx: Ctx): string {
    const m = statement.match(/^process\.stdout\.write\((.*)\)$/);
    if (!m) throw new Error(`SyntaxError: the fake cannot repeat ${statement}`);
    return this.valueSync(m[1] ?? "", ctx);
  }

  /** Runs one statement; returns an exit code to end with, or null to go on. */
  private async run(s: string, ctx: Ctx): Promise<number | null> {
    let m: RegExpMatchArray | null;
    if ((m = s.match(/^console\.log\((.*)\)$/))) ctx.proc.write(`${await this.value(m[1] ?? "", ctx)}\r\n`);
    else if ((m = s.match(/^process\.stdout\.write\((.*)\)$/))) ctx.proc.write(await this.value(m[1] ?? "", ctx));
    else if ((m = s.match(/^fs\.writeFileSync\((["'])(.*?)\1,\s*(.*)\)$/))) await this.fs.writeFile(ctx.at(m[2] ?? ""), await this.value(m[3] ?? "", ctx));
    else if ((m = s.match(/^fs\.rmSync\((["'])(.*?)\1\)$/))) await this.fs.rm(ctx.at(m[2] ?? ""));
    else if ((m = s.match(/^process\.exit\((\d+)\)$/))) return Number(m[1]);
    else throw new Error(`SyntaxError: the fake does not know ${s}`);
    return null;
  }

  private async value(expr: string, ctx: Ctx): Promise<string> {
    const read = expr.match(/^fs\.readFileSync\((["'])(.*?)\1,\s*["']utf8["']\)$/);
    if (read) return dec.decode(await this.fs.readFile(ctx.at(read[2] ?? "")));
    return this.valueSync(expr, ctx);
  }

  private valueSync(expr: string, ctx: Ctx): string {
    let m: RegExpMatchArray | null;
    if ((m = expr.match(/^(["'])(.*)\1$/))) return m[2] ?? "";
    if ((m = expr.match(/^(["'])(.*)\1\.repeat\((\d+)\)$/))) return (m[2] ?? "").repeat(Number(m[3]));
    if (expr === "process.cwd()") return ctx.cwd;
    if ((m = expr.match(/^process\.argv\[(\d+)\]$/))) return ctx.argv[Number(m[1])] ?? "undefined";
    if ((m = expr.match(/^process\.env\.(\w+)$/))) return ctx.env[m[1] ?? ""] ?? "undefined";
    throw new Error(`SyntaxError: the fake cannot evaluate ${expr}`);
  }
}

/** The files `--require F`, `--require=F` and `-r F` name in NODE_OPTIONS (double quotes as Node reads them). */
function preloads(options: string): string[] {
  const words = [...options.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? "")));
  const files: string[] = [];
  words.forEach((w, i) => {
    if (w === "--require" || w === "-r") files.push(words[i + 1] ?? "");
    else if (w.startsWith("--require=")) files.push(w.slice("--require=".length));
  });
  return files;
}

interface Ctx {
  proc: FakeProcess;
  at: (p: string) => string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A BootFn over fakes: each boot is a new, empty container (as after a real teardown). */
export function fakeBoot(): BootFn & { booted: FakeWebContainer[]; latest: () => FakeWebContainer } {
  const booted: FakeWebContainer[] = [];
  const boot = async () => {
    const wc = new FakeWebContainer();
    booted.push(wc);
    return wc;
  };
  return Object.assign(boot, {
    booted,
    latest: () => {
      const wc = booted.at(-1);
      if (!wc) throw new Error("nothing booted");
      return wc;
    },
  });
}

/** A BootFn that waits until the test lets it finish (or fail). */
export function heldBoot(): BootFn & { finish: () => void; fail: (message: string) => void; calls: number } {
  let finish: () => void = () => {};
  let fail: (message: string) => void = () => {};
  const boot = Object.assign(
    () => {
      boot.calls++;
      return new Promise<WebContainerLike>((resolve, reject) => {
        finish = () => resolve(new FakeWebContainer());
        fail = (message) => reject(new Error(message));
      });
    },
    { calls: 0, finish: () => finish(), fail: (m: string) => fail(m) },
  );
  return boot;
}

export const text = (s: string) => enc.encode(s);
export const utf8 = (b: Uint8Array | null | undefined) => (b ? dec.decode(b) : b);
