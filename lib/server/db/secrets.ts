import "server-only";
// Server-side secrets (e.g. the key that signs anonymous client cookies),
// made once and kept in SQL so every process and every restart agrees on them.
import { randomBytes } from "node:crypto";
import type { Sql } from "./sql";

const cache = new WeakMap<Sql, Map<string, Promise<Buffer>>>();

/** A random 32-byte secret, created on first use and kept in SQL (e.g. for signing client cookies). */
export function serverSecret(sql: Sql, name: string): Promise<Buffer> {
  if (!name) throw new RangeError("serverSecret needs a name");
  let byName = cache.get(sql);
  if (!byName) cache.set(sql, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = loadOrCreate(sql, name);
    byName.set(name, secret);
    // A failed read is not remembered: the next caller asks the database again.
    secret.catch(() => byName.delete(name));
  }
  return secret;
}

async function loadOrCreate(sql: Sql, name: string): Promise<Buffer> {
  // One statement, so two processes racing to create it both get the one that won.
  const rows = await sql.query<{ value: Uint8Array }>(
    `INSERT INTO server_secrets (name, value) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
     RETURNING value`,
    [name, randomBytes(32)],
  );
  const value = rows[0]?.value;
  if (!value || value.length !== 32) throw new Error(`server secret '${name}' is missing or not 32 bytes`);
  return Buffer.from(value);
}
