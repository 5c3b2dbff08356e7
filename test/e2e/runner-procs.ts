// The server side of the runner fault test: a fresh PostgreSQL database of
// its own (created under REVERIE_TEST_DATABASE_URL's server, dropped after),
// a watch on the mind's lease row there, and `npx reverie runner` processes
// on it, each in its own process group so that `kill -9` ends the runner
// itself, not only bin/reverie.mjs in front of it (which runs the runner as
// its child).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";

export interface FreshDatabase {
  url: string;
  /** A pool on it, for the test's own reads (the lease row). */
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** CREATE DATABASE with a random name on the server of `serverUrl`; drop() ends every connection to it and removes it. */
export async function freshDatabase(serverUrl: string): Promise<FreshDatabase> {
  const name = `reverie_runner_faults_${randomBytes(6).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export interface RunnerProcess {
  /** The test's name for it ("A", "B"), and how many times it was started. */
  readonly name: string;
  readonly generation: number;
  /** Its name in leases (runner:<host>:<pid>:<random>), as it printed on starting. */
  readonly holder: string;
  alive(): boolean;
  /** Its last lines of output (stdout and stderr). */
  tail(lines?: number): string[];
  /** SIGKILL to its whole process group: no handover, no release. */
  kill9(): void;
  /** SIGTERM (it stops its minds and lets their leases go), then SIGKILL if it has not gone in 8 s. */
  stop(): Promise<void>;
}

const HOLDER_LINE = /reverie runner: (runner:\S+): hosting up to/;

/** Start `node bin/reverie.mjs runner` with `env`; resolves once it says it is hosting (its holder name). */
export async function startRunnerProcess(name: string, generation: number, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<RunnerProcess> {
  const child: ChildProcess = spawn(process.execPath, [resolve("bin/reverie.mjs"), "runner"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let holder = "";
  let gone = false;
  const exited = new Promise<void>((r) =>
    child.once("exit", (code, signal) => {
      gone = true;
      lines.push(`[exited: ${signal ?? code}]`);
      r();
    }),
  );
  const read = (stream: NodeJS.ReadableStream | null) => {
    let rest = "";
    stream?.on("data", (d: Buffer) => {
      const parts = (rest + d.toString()).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
        if (lines.length > 400) lines.splice(0, lines.length - 400);
        holder ||= HOLDER_LINE.exec(line)?.[1] ?? "";
      }
    });
  };
  read(child.stdout);
  read(child.stderr);
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  const proc: RunnerProcess = {
    name,
    generation,
    get holder() {
      return holder;
    },
    alive: () => !gone,
    tail: (n = 40) => lines.slice(-n),
    kill9: () => group("SIGKILL"),
    async stop() {
      if (gone) return;
      group("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 8000))]);
      group("SIGKILL");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (!holder) {
    if (gone || Date.now() > deadline) {
      proc.kill9();
      throw new Error(`runner ${name} did not start (${gone ? "it exited" : `no "hosting" line in ${timeoutMs / 1000} s`}): ${lines.slice(-30).join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return proc;
}

interface LeaseRow {
  holder: string;
  epoch: number;
  live: boolean;
  /** A home asked the holder to hand it over. */
  wanted: string | null;
}

/** The mind's lease row, as the test reads it from the database every 200 ms: each epoch's holder, the current row, and each change (for a failure's story). */
export function watchLease(db: FreshDatabase) {
  const holders = new Map<number, string>();
  const changes: string[] = [];
  let current: LeaseRow | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await db.pool
        .query<{ holder: string; epoch: string; live: boolean; wanted_by: string | null }>("SELECT holder, epoch, expires_at > now() AS live, wanted_by FROM mind_leases LIMIT 1")
        .catch(() => ({ rows: [] }));
      const row = rows[0];
      if (row) {
        const next: LeaseRow = { holder: row.holder, epoch: Number(row.epoch), live: row.live, wanted: row.wanted_by };
        if (!current || current.epoch !== next.epoch || current.live !== next.live || current.wanted !== next.wanted) {
          changes.push(`${new Date().toISOString().slice(11, 23)} epoch ${next.epoch} ${next.holder.slice(0, 24)} ${next.live ? "live" : "lapsed"}${next.wanted ? ` wanted by ${next.wanted.slice(0, 12)}` : ""}`);
        }
        current = next;
        if (!holders.has(current.epoch)) holders.set(current.epoch, current.holder);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    holders,
    changes,
    current: () => current,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
