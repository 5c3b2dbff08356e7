import "server-only";
// The sync API's limits: how many minds a client may create (in all, and per
// hour), and how much a synced mind and all of them together may hold. Every
// door that writes checks them before writing; over one, 429 or 413 with a
// message naming the limit, its variable and what to do, and nothing written.
// Defaults fit one small server (a classroom, a demo).

export interface SyncQuotas {
  /** Synced minds one client may have created (its cookie; else its address). */
  mindsPerClient: number;
  /** Minds one client may create in an hour. */
  createsPerHour: number;
  /** Minds all clients together may create in an hour (a client that changes its claimed address is still bounded). */
  createsPerHourTotal: number;
  /** Bytes of steps and blobs one synced mind may hold. */
  bytesPerMind: number;
  /** Bytes all synced minds together may hold (each mind also counts MIND_ROW_BYTES for its rows). */
  bytesTotal: number;
  stepsPerMind: number;
  blobsPerMind: number;
  /** Share links one mind may make (each is a row, revoked or not). */
  linksPerMind: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_QUOTAS: SyncQuotas = {
  mindsPerClient: 50,
  createsPerHour: 60,
  createsPerHourTotal: 1000,
  bytesPerMind: 256 * MiB,
  bytesTotal: 4096 * MiB,
  stepsPerMind: 1_000_000,
  blobsPerMind: 100_000,
  linksPerMind: 200,
};

/** What a mind's own rows cost against the total, even empty: minds are not free to make. */
export const MIND_ROW_BYTES = 1024;

export const QUOTA_VARS: Record<keyof SyncQuotas, string> = {
  mindsPerClient: "SYNC_MAX_MINDS_PER_CLIENT",
  createsPerHour: "SYNC_MAX_CREATES_PER_HOUR",
  createsPerHourTotal: "SYNC_MAX_CREATES_PER_HOUR_TOTAL",
  bytesPerMind: "SYNC_MAX_BYTES_PER_MIND",
  bytesTotal: "SYNC_MAX_BYTES_TOTAL",
  stepsPerMind: "SYNC_MAX_STEPS_PER_MIND",
  blobsPerMind: "SYNC_MAX_BLOBS_PER_MIND",
  linksPerMind: "SYNC_MAX_LINKS_PER_MIND",
};

const UNITS: Record<string, number> = { "": 1, k: 1024, m: MiB, g: 1024 * MiB, t: 1024 * 1024 * MiB };

/** A whole number, with an optional binary unit for the byte limits: 500, 256MiB, 4G, 64k. */
function parseAmount(raw: string, bytes: boolean): number | undefined {
  const m = /^(\d+)\s*(?:([kmgt])(?:i?b)?)?$/i.exec(raw.trim());
  if (!m || (!bytes && m[2])) return undefined;
  const n = Number(m[1]) * UNITS[(m[2] ?? "").toLowerCase()]!;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export type QuotasResult = { ok: true; quotas: SyncQuotas } | { ok: false; problems: string[] };

export function parseQuotas(env: Record<string, string | undefined>): QuotasResult {
  const quotas = { ...DEFAULT_QUOTAS };
  const problems: string[] = [];
  for (const [field, name] of Object.entries(QUOTA_VARS) as [keyof SyncQuotas, string][]) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const bytes = field.startsWith("bytes");
    const n = parseAmount(raw, bytes);
    if (n === undefined) problems.push(`${name} must be a positive whole number${bytes ? " of bytes (units k, M, G allowed: 256MiB)" : ""} (got "${raw}")`);
    else quotas[field] = n;
  }
  return problems.length ? { ok: false, problems } : { ok: true, quotas };
}
