import "server-only";
// The database handle every server family speaks, PGlite or PostgreSQL alike:
// its own module, so the migrations (which take one) and sql.ts (which opens
// one and migrates it) do not import each other.

export interface Sql {
  readonly dialect: "pglite" | "postgres";
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * Runs a script of several statements, without parameters (a library's own
   * schema, or its BEGIN … RETURNING … COMMIT block), as one call: the rows of
   * every statement, in order. A script that fails leaves no transaction open.
   */
  exec<T = Record<string, unknown>>(script: string): Promise<T[]>;
  /** Runs fn in one transaction (BEGIN/COMMIT, ROLLBACK on throw); on pg it holds one pooled client. */
  transaction<R>(fn: (tx: Sql) => Promise<R>): Promise<R>;
  /** LISTEN on a channel (pg_notify payloads arrive after their transaction commits); resolves to its unlisten. On pg it holds one dedicated client. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
