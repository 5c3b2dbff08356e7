import "server-only";
// The server's SQL store: PGlite embedded in the process by default (so
// `npm start` needs no other server), PostgreSQL through a pg Pool when a URL
// is given. Both speak the same dialect and get the same migrations on open.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import pg from "pg";
import { migrate } from "./migrations";
import type { Sql } from "./types";

export type { Sql };

/** The database could not be opened or migrated (unreachable server, unusable data folder). */
export class SqlUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SqlUnavailableError";
  }
}

export const DEFAULT_DATA_DIR = ".data/pglite";

/** Opens and migrates: PostgreSQL (pg Pool) when databaseUrl is given, else PGlite in dataDir (default ".data/pglite"). */
export async function openSql(opts: { databaseUrl?: string; dataDir?: string } = {}): Promise<Sql> {
  const sql = opts.databaseUrl ? openPostgres(opts.databaseUrl) : await openPglite(opts.dataDir ?? DEFAULT_DATA_DIR);
  try {
    await migrate(sql);
  } catch (e) {
    await sql.close().catch(() => {});
    // The URL may carry a password: name the engine, not the address.
    throw new SqlUnavailableError(`could not open the ${sql.dialect === "postgres" ? "PostgreSQL database (DATABASE_URL)" : "PGlite database"}: ${(e as Error).message}`, { cause: e });
  }
  return sql;
}

const SERVER_SQL = Symbol.for("reverie.serverSql");
type Holder = { [SERVER_SQL]?: Promise<Sql> };

/** The process-wide database: DATABASE_URL if set, else PGlite under .data/. Opened once, lazily. */
export function serverSql(): Promise<Sql> {
  // Kept on globalThis so a dev server's module reloads share one PGlite (it is single-connection).
  const holder = globalThis as Holder;
  if (!holder[SERVER_SQL]) {
    const opening = openSql({ databaseUrl: process.env.DATABASE_URL || undefined });
    holder[SERVER_SQL] = opening;
    // A failed open is not remembered: the next request tries again.
    opening.catch(() => {
      if (holder[SERVER_SQL] === opening) delete holder[SERVER_SQL];
    });
  }
  return holder[SERVER_SQL];
}

async function openPglite(dataDir: string): Promise<Sql> {
  const dir = resolve(dataDir);
  let db: PGlite;
  try {
    mkdirSync(dir, { recursive: true });
    db = new PGlite(dir);
    await db.waitReady;
  } catch (e) {
    throw new SqlUnavailableError(`could not open PGlite in ${dataDir}: ${(e as Error).message}`, { cause: e });
  }
  // PGlite is one connection. Its own mutex already queues every top-level
  // query and transaction, so a caller's statements never land inside another
  // caller's BEGIN…COMMIT; inside fn, use tx (the outer handle would wait for
  // the transaction that is waiting for it).
  return {
    dialect: "pglite",
    async query<T>(text: string, params?: unknown[]) {
      return (await db.query<T>(text, params)).rows;
    },
    async exec<T>(script: string) {
      try {
        return (await db.exec(script)).flatMap((r) => r.rows as T[]);
      } catch (e) {
        // One connection: a script that failed inside its own BEGIN would leave every later query in an aborted transaction.
        await db.exec("ROLLBACK").catch(() => undefined);
        throw e;
      }
    },
    transaction<R>(fn: (tx: Sql) => Promise<R>) {
      return db.transaction((tx) => fn(pgliteTx(tx)));
    },
    async listen(channel, onPayload) {
      const unlisten = await db.listen(channel, onPayload);
      return () => unlisten();
    },
    close: () => db.close(),
  };
}

function pgliteTx(tx: Transaction): Sql {
  const self: Sql = {
    dialect: "pglite",
    async query<T>(text: string, params?: unknown[]) {
      return (await tx.query<T>(text, params)).rows;
    },
    async exec<T>(script: string) {
      return (await tx.exec(script)).flatMap((r) => r.rows as T[]);
    },
    transaction: (fn) => savepoint(self, fn),
    listen: () => Promise.reject(new Error("listen on the Sql, not a transaction")),
    close: () => Promise.reject(new Error("close the Sql, not a transaction")),
  };
  return self;
}

function openPostgres(databaseUrl: string): Sql {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    // Fail fast when the server is gone, so the proxy answers 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
  });
  // An idle client losing its server must not crash the process; the next query fails and says so.
  pool.on("error", (e) => console.error(`postgres: idle client error: ${e.message}`));
  let closed: Promise<void> | undefined;
  const listeners = new Set<{ stop(): Promise<void> }>();
  return {
    dialect: "postgres",
    async query<T>(text: string, params?: unknown[]) {
      return (await pool.query(text, params)).rows as T[];
    },
    // Without parameters, pg sends the simple protocol, which runs several statements (and answers one result each).
    // On a client of its own, so a script that fails inside its BEGIN is rolled back before the client goes back to the pool.
    exec: <T>(script: string) => rolledBackOnError(pool, async (client) => rowsOf<T>(await client.query(script))),
    transaction: <R>(fn: (tx: Sql) => Promise<R>) =>
      rolledBackOnError(pool, async (client) => {
        await client.query("BEGIN");
        const result = await fn(pgTx(client));
        await client.query("COMMIT");
        return result;
      }),
    async listen(channel, onPayload) {
      const l = pgListener(databaseUrl, channel, onPayload);
      listeners.add(l);
      try {
        await l.ready;
      } catch (e) {
        listeners.delete(l);
        await l.stop();
        throw e;
      }
      return async () => {
        listeners.delete(l);
        await l.stop();
      };
    },
    close: () => (closed ??= Promise.all([...listeners].map((l) => l.stop())).then(() => pool.end())),
  };
}

function pgTx(client: pg.PoolClient): Sql {
  const self: Sql = {
    dialect: "postgres",
    async query<T>(text: string, params?: unknown[]) {
      return (await client.query(text, params)).rows as T[];
    },
    async exec<T>(script: string) {
      return rowsOf<T>(await client.query(script));
    },
    transaction: (fn) => savepoint(self, fn),
    listen: () => Promise.reject(new Error("listen on the Sql, not a transaction")),
    close: () => Promise.reject(new Error("close the Sql, not a transaction")),
  };
  return self;
}

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be
 * handed to other queries). If it drops, it reconnects after a pause; callers
 * keep a slow poll for what is sent meanwhile.
 */
function pgListener(databaseUrl: string, channel: string, onPayload: (payload: string) => void): { ready: Promise<void>; stop(): Promise<void> } {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
    client = c;
    const reconnect = () => {
      if (stopped || client !== c) return;
      client = undefined;
      c.end().catch(() => {});
      retry = setTimeout(() => void connect().catch((e: Error) => console.error(`postgres: LISTEN ${channel} failed: ${e.message}`)), 1_000);
    };
    c.on("error", (e) => {
      console.error(`postgres: LISTEN client error: ${e.message}`);
      reconnect();
    });
    c.on("end", reconnect);
    c.on("notification", (n) => {
      if (n.channel === channel) onPayload(n.payload ?? "");
    });
    await c.connect();
    // A channel is an identifier, not a parameter: quote it.
    await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
  };
  return {
    ready: connect(),
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}

let savepoints = 0;

/** A transaction inside a transaction: a savepoint, so a throw undoes only the inner part. */
async function savepoint<R>(tx: Sql, fn: (tx: Sql) => Promise<R>): Promise<R> {
  const name = `sp_${++savepoints}`;
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const result = await fn(tx);
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (e) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw e;
  }
}

/** The rows of a simple-protocol query: one result, or one per statement of a script. */
function rowsOf<T>(result: pg.QueryResult | pg.QueryResult[]): T[] {
  return (Array.isArray(result) ? result : [result]).flatMap((r) => (r.rows ?? []) as T[]);
}

/** Runs `fn` on a pooled client of its own; if it throws, ROLLBACK before the client goes back (and a client whose ROLLBACK failed is dropped, its state unknown). */
async function rolledBackOnError<R>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await fn(client);
  } catch (e) {
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw e;
  } finally {
    client.release(broken);
  }
}
