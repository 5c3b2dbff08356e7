// Real databases for the lib/server tests: PGlite in a fresh temp folder, and,
// when REVERIE_TEST_DATABASE_URL points at a PostgreSQL server (.ci/run starts
// one), a fresh database per test file so runs never see each other's rows.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openSql, type Sql } from "@/lib/server/db/sql";

export interface Engine {
  name: "pglite" | "postgres";
  /** Why this engine's tests are skipped here, or undefined when it runs. */
  skip?: string;
  /** A new, empty database; every call is a different one. databaseUrl: PostgreSQL's, for a server process to open (DATABASE_URL). */
  fresh(): Promise<{ open(): Promise<Sql>; remove(): Promise<void>; databaseUrl?: string }>;
}

const PG_URL = process.env.REVERIE_TEST_DATABASE_URL;

export const pglite: Engine = {
  name: "pglite",
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), "reverie-pglite-"));
    return { open: () => openSql({ dataDir: join(dir, "db") }), remove: () => rm(dir, { recursive: true, force: true }) };
  },
};

export const postgres: Engine = {
  name: "postgres",
  skip: PG_URL ? undefined : "REVERIE_TEST_DATABASE_URL is not set (.ci/run starts a PostgreSQL server and sets it)",
  async fresh() {
    if (!PG_URL) throw new Error("no REVERIE_TEST_DATABASE_URL");
    const name = `reverie_test_${randomBytes(6).toString("hex")}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return { open: () => openSql({ databaseUrl: url.toString() }), remove: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`), databaseUrl: url.toString() };
  },
};

export const engines: Engine[] = [pglite, postgres];

for (const e of engines) if (e.skip) console.warn(`[server tests] skipping ${e.name}: ${e.skip}`);

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
