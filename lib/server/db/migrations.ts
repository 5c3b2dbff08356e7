import "server-only";
// The one schema, as an ordered list of migrations, for PGlite and PostgreSQL
// alike. Append new migrations; never edit one that has shipped (databases
// already hold it). Each is a list of single statements, because PGlite's
// parameterised query runs one statement at a time.
import type { Sql } from "./types";

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "spend ledger and server secrets",
    statements: [
      // Money in integer micro-dollars: sums stay exact, no float ever reaches SQL.
      // One row per cap and period: global_day (client_id ''), client_hour, client_day.
      `CREATE TABLE spend_counters (
        cap TEXT NOT NULL CHECK (cap IN ('global_day', 'client_hour', 'client_day')),
        client_id TEXT NOT NULL,
        starts_at TIMESTAMPTZ NOT NULL,
        settled_micros BIGINT NOT NULL DEFAULT 0,
        pending_micros BIGINT NOT NULL DEFAULT 0 CHECK (pending_micros >= 0),
        PRIMARY KEY (cap, client_id, starts_at)
      )`,
      // A hold on the worst case until the call is settled (or expired at its worst case).
      `CREATE TABLE spend_reservations (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        model TEXT,
        hour_starts_at TIMESTAMPTZ NOT NULL,
        day_starts_at TIMESTAMPTZ NOT NULL,
        worst_micros BIGINT NOT NULL CHECK (worst_micros >= 0),
        actual_micros BIGINT,
        usage JSONB,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'expired', 'settled')),
        created_at TIMESTAMPTZ NOT NULL,
        -- When it expired at its worst case, if it did (a late settle then replaces that by the truth).
        expired_at TIMESTAMPTZ,
        settled_at TIMESTAMPTZ
      )`,
      `CREATE INDEX spend_reservations_pending ON spend_reservations (created_at) WHERE status = 'pending'`,
      `CREATE TABLE server_secrets (
        name TEXT PRIMARY KEY,
        value BYTEA NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    version: 2,
    name: "synced minds, share links and guest messages",
    statements: [
      // Tokens are kept only as SHA-256 digests: a leaked database grants nothing.
      `CREATE TABLE sync_minds (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        write_token_hash BYTEA NOT NULL,
        last_seq BIGINT NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      // seq is the browser's own order; step_id makes a resend idempotent.
      `CREATE TABLE sync_steps (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        seq BIGINT NOT NULL,
        step_id TEXT NOT NULL,
        traj TEXT NOT NULL,
        type TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (mind, seq),
        UNIQUE (mind, step_id)
      )`,
      `CREATE INDEX sync_steps_traj ON sync_steps (mind, traj, seq)`,
      `CREATE TABLE sync_blobs (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        name TEXT NOT NULL,
        content TEXT NOT NULL,
        PRIMARY KEY (mind, name)
      )`,
      `CREATE TABLE sync_trajectories (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        traj TEXT NOT NULL,
        name TEXT NOT NULL,
        dir TEXT NOT NULL,
        parent_traj TEXT,
        parent_step TEXT,
        PRIMARY KEY (mind, traj)
      )`,
      `CREATE TABLE share_links (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        kind TEXT NOT NULL CHECK (kind IN ('snapshot', 'live', 'invite')),
        token_hash BYTEA NOT NULL UNIQUE,
        at_seq BIGINT,
        label TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        revoked_at TIMESTAMPTZ
      )`,
      `CREATE INDEX share_links_mind ON share_links (mind, created_at)`,
      // Queued until the mind's runner uploads a step with the same id (id is a UUID v4, usable as a step_id).
      `CREATE TABLE guest_messages (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        link TEXT NOT NULL REFERENCES share_links (id),
        from_name TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      // The rate limit counts one link's recent messages; the inbox reads one mind's.
      `CREATE INDEX guest_messages_link_time ON guest_messages (link, created_at)`,
      `CREATE INDEX guest_messages_mind_time ON guest_messages (mind, created_at)`,
    ],
  },
  {
    version: 3,
    name: "what upstream reported for a call, and pruning by day",
    statements: [
      // What the upstream's reported usage priced at, when it differs from what was settled: a call settles at most
      // its hold (actual_micros), and a report above the hold is an overrun, counted from here.
      `ALTER TABLE spend_reservations ADD COLUMN reported_micros BIGINT`,
      // The day's overruns are counted, and closed reservations of past days pruned, by day.
      `CREATE INDEX spend_reservations_day ON spend_reservations (day_starts_at)`,
    ],
  },
  {
    version: 4,
    name: "who made a synced mind, and what it holds, for the sync quotas",
    statements: [
      // The client (signed cookie id) and address a mind was created from: creation is rate-limited and counted per client.
      `ALTER TABLE sync_minds ADD COLUMN client_id TEXT`,
      `ALTER TABLE sync_minds ADD COLUMN client_addr TEXT`,
      // What the mind holds, kept with every write in the same transaction, so a quota check reads one row.
      `ALTER TABLE sync_minds ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE sync_minds ADD COLUMN step_count BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE sync_minds ADD COLUMN blob_count BIGINT NOT NULL DEFAULT 0`,
      `UPDATE sync_minds m SET
         step_count = (SELECT count(*) FROM sync_steps s WHERE s.mind = m.id),
         blob_count = (SELECT count(*) FROM sync_blobs b WHERE b.mind = m.id),
         bytes = COALESCE((SELECT sum(octet_length(json)) FROM sync_steps s WHERE s.mind = m.id), 0)
               + COALESCE((SELECT sum(octet_length(content)) FROM sync_blobs b WHERE b.mind = m.id), 0)`,
      `CREATE INDEX sync_minds_client ON sync_minds (client_id, created_at)`,
      `CREATE INDEX sync_minds_addr ON sync_minds (client_addr, created_at)`,
      `CREATE INDEX sync_minds_created ON sync_minds (created_at)`,
    ],
  },
  {
    version: 5,
    name: "a running mind's state on the server (the SQL home of the MindState port)",
    statements: [
      // The mind's record (its human's settings) and the shell's variables and directory, as the tab keeps them.
      `ALTER TABLE sync_minds ADD COLUMN settings TEXT`,
      `ALTER TABLE sync_minds ADD COLUMN shell TEXT`,
      // One row per step that records a model call: what the caps read.
      `CREATE TABLE mind_usage (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        step_id TEXT NOT NULL,
        ts_ms BIGINT NOT NULL,
        usd DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (mind, step_id)
      )`,
      `CREATE INDEX mind_usage_time ON mind_usage (mind, ts_ms)`,
      // What each model call saw (its context record), whole.
      `CREATE TABLE mind_contexts (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        step_id TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (mind, step_id)
      )`,
      // Sealed summaries, per trajectory: written once, never rewritten.
      `CREATE TABLE mind_tiers (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        traj TEXT NOT NULL,
        tier INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (mind, traj, tier, idx)
      )`,
      // The workspace (the sandbox's persistent filesystem).
      `CREATE TABLE mind_files (
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        path TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('file', 'dir', 'symlink')),
        data BYTEA,
        target TEXT,
        mode INTEGER NOT NULL,
        mtime DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (mind, path)
      )`,
    ],
  },
  {
    version: 6,
    name: "a mind's lease: one writer at a time, fenced by epoch",
    statements: [
      // The holder (a tab's sync session or a server runner), an epoch that only grows, and when it lapses unless renewed.
      `CREATE TABLE mind_leases (
        mind TEXT PRIMARY KEY REFERENCES sync_minds (id),
        holder TEXT NOT NULL,
        epoch BIGINT NOT NULL CHECK (epoch > 0),
        expires_at TIMESTAMPTZ NOT NULL,
        renewed_at TIMESTAMPTZ NOT NULL
      )`,
    ],
  },
  {
    version: 7,
    name: "a mind that never sleeps: its pacing, keep-alive, handover requests and a kept key",
    statements: [
      // The inner life's pacing between wakes (JSON: level, ticks, failures), as the tab keeps it beside its settings.
      `ALTER TABLE sync_minds ADD COLUMN pacing TEXT`,
      // Its human asked for it to go on thinking on the server when no tab holds it.
      `ALTER TABLE sync_minds ADD COLUMN keep_alive BOOLEAN NOT NULL DEFAULT false`,
      // A panic stop from a tab: no runner takes the mind until a tab starts it again.
      `ALTER TABLE sync_minds ADD COLUMN halted_at TIMESTAMPTZ`,
      // The mind's own model key, when its human opted in to keep it here for the runner: AES-256-GCM under RUNNER_KEY_SECRET (never stored).
      `ALTER TABLE sync_minds ADD COLUMN runner_key BYTEA`,
      // A home asked for the lease while another held it: the holder hands over (ends its run, releases).
      `ALTER TABLE mind_leases ADD COLUMN wanted_by TEXT`,
      `ALTER TABLE mind_leases ADD COLUMN wanted_at TIMESTAMPTZ`,
      `CREATE INDEX mind_leases_holder ON mind_leases (holder)`,
    ],
  },
  {
    version: 8,
    name: "the mind's state syncs both ways: workspace files carry a version",
    statements: [
      // Bumped by every write of the row, by either home: a write against a stale version keeps both copies.
      `ALTER TABLE mind_files ADD COLUMN version BIGINT NOT NULL DEFAULT 1`,
      // From here on a mind's bytes count its workspace, sealed summaries and record too (each write keeps them, as for steps and blobs).
      `UPDATE sync_minds m SET bytes = bytes
         + COALESCE((SELECT sum(COALESCE(octet_length(data), 0) + COALESCE(octet_length(target), 0)) FROM mind_files f WHERE f.mind = m.id), 0)
         + COALESCE((SELECT sum(octet_length(json)) FROM mind_tiers t WHERE t.mind = m.id), 0)
         + COALESCE(octet_length(settings), 0) + COALESCE(octet_length(shell), 0) + COALESCE(octet_length(pacing), 0)`,
    ],
  },
  {
    version: 9,
    name: "a mind's steps of a kind, however far back (its alarms)",
    statements: [
      // A mind starting (or a runner scheduling its next wake) reads every alarm step it ever wrote: by this index, not a scan of its log.
      `CREATE INDEX sync_steps_type ON sync_steps (mind, traj, type, seq)`,
    ],
  },
  {
    version: 10,
    name: "roles on invites, and operators' control requests",
    statements: [
      // What an invite's holder may do (lib/sharing/roles.ts); invites made before roles could read everything and talk: members.
      `ALTER TABLE share_links ADD COLUMN role TEXT CHECK (role IN ('guest', 'member', 'operator'))`,
      `UPDATE share_links SET role = 'member' WHERE kind = 'invite'`,
      // Set by an operator's pause (its name), cleared by a resume, a stop, or the owner's Start: only a paused mind may be resumed from a link.
      `ALTER TABLE sync_minds ADD COLUMN paused_by TEXT`,
      // Queued like guests' messages until the mind's home uploads a step with the request's id (it records who asked).
      `CREATE TABLE mind_controls (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        link TEXT NOT NULL REFERENCES share_links (id),
        from_name TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'stop')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX mind_controls_mind_time ON mind_controls (mind, created_at)`,
    ],
  },
  {
    version: 11,
    name: "alert links: alerts, and storms of them coalesced",
    statements: [
      `ALTER TABLE share_links DROP CONSTRAINT share_links_kind_check`,
      `ALTER TABLE share_links ADD CONSTRAINT share_links_kind_check CHECK (kind IN ('snapshot', 'live', 'invite', 'alert'))`,
      // Past a link's burst in a minute, alerts join that minute's storm, delivered as one step once the minute closes.
      `CREATE TABLE alert_storms (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        link TEXT NOT NULL REFERENCES share_links (id),
        opened_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        closes_at TIMESTAMPTZ NOT NULL
      )`,
      `CREATE INDEX alert_storms_link ON alert_storms (link, closes_at)`,
      `CREATE INDEX alert_storms_mind ON alert_storms (mind, closes_at)`,
      // Queued like guests' messages: one alone is delivered once a step with its id is uploaded; a storm's by the storm's id.
      `CREATE TABLE link_alerts (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        link TEXT NOT NULL REFERENCES share_links (id),
        storm TEXT REFERENCES alert_storms (id),
        severity TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX link_alerts_link_time ON link_alerts (link, created_at)`,
      `CREATE INDEX link_alerts_mind_time ON link_alerts (mind, created_at)`,
    ],
  },
  {
    version: 12,
    name: "operators' changes to a mind's memories and goals",
    statements: [
      // Queued like control requests until the mind's home uploads a step with the request's id (it applies the change then).
      `CREATE TABLE mind_curations (
        id TEXT PRIMARY KEY,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        link TEXT NOT NULL REFERENCES share_links (id),
        from_name TEXT NOT NULL,
        request JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX mind_curations_mind_time ON mind_curations (mind, created_at)`,
    ],
  },
  {
    version: 13,
    name: "what a mind's own browser hands it while another home holds it",
    statements: [
      // Kept until the mind's home records a step with the change's id (lib/sync/inbox-wire.ts, OwnerChange).
      `CREATE TABLE owner_changes (
        id TEXT NOT NULL,
        mind TEXT NOT NULL REFERENCES sync_minds (id),
        change JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (mind, id)
      )`,
      `CREATE INDEX owner_changes_mind_time ON owner_changes (mind, created_at)`,
    ],
  },
  {
    version: 14,
    name: "a stored step is never changed or deleted",
    statements: [
      // Append-only in the database itself, whoever sends the statement. The one way past is forgetting a whole mind
      // (lib/server/sync/forget.ts): its transaction sets reverie.forget_mind, locally, to "<mind>:<its own txid>", and
      // only that mind's rows may then be deleted, in that transaction only (a value set for the session, or left by
      // another transaction, names another txid). A guard against mistakes, not against the database's owner, who
      // can drop a trigger: a later migration that must rewrite steps says so in the open (DISABLE TRIGGER, then ENABLE).
      `CREATE FUNCTION sync_steps_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'TRUNCATE' THEN
           RAISE EXCEPTION 'sync_steps is append-only: TRUNCATE refused (a stored step is never deleted; forget a mind to remove its steps)';
         END IF;
         IF TG_OP = 'DELETE' AND current_setting('reverie.forget_mind', true) = OLD.mind || ':' || txid_current()::text THEN
           RETURN OLD;
         END IF;
         RAISE EXCEPTION 'sync_steps is append-only: % of step % (mind %, seq %) refused (a stored step is never changed or deleted; only forgetting its whole mind removes it)',
           TG_OP, OLD.step_id, OLD.mind, OLD.seq;
       END
       $$`,
      `CREATE TRIGGER sync_steps_append_only BEFORE UPDATE OR DELETE ON sync_steps FOR EACH ROW EXECUTE FUNCTION sync_steps_append_only()`,
      `CREATE TRIGGER sync_steps_no_truncate BEFORE TRUNCATE ON sync_steps FOR EACH STATEMENT EXECUTE FUNCTION sync_steps_append_only()`,
    ],
  },
];

// Any fixed number: every process migrating the same database takes this lock first.
const MIGRATION_LOCK = 7_264_913_001;

/** Applies the migrations this database lacks, each once, in order; safe when several processes open it at once. */
export async function migrate(sql: Sql, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return sql.transaction(async (tx) => {
    // The lock is released by COMMIT; a second opener waits here and then finds everything applied.
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const have = new Set(rows.map((r) => Number(r.version)));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...have);
    if (newest > known) throw new Error(`the database is at schema version ${newest}, newer than this code knows (${known}); run the newer code`);
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (have.has(m.version)) continue;
      for (const statement of m.statements) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
