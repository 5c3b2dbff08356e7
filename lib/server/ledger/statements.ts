import "server-only";
// The ledger's statements, for PGlite and PostgreSQL alike.
//
// Counters change only through INSERT … ON CONFLICT DO UPDATE: it locks the
// existing row as last committed and evaluates its WHERE and SET on that
// version, which is what makes "add this hold if it still fits" atomic under
// READ COMMITTED. (An UPDATE joined to a locking subquery is not: PostgreSQL
// re-checks such a join against a stale row and silently skips it — the
// concurrency test caught exactly that.) Each statement lists the counter rows
// in one order, sorted by (cap, client_id, starts_at): client_day,
// client_hour, then the shared global_day row; VALUES rows are processed in
// order, so concurrent statements queue on the rows and never deadlock.

/** The three counter rows of a reservation: $1 client, $2 day start, $3 hour start. */
const KEYS = `(('client_day', $1, $2::timestamptz), ('client_hour', $1, $3::timestamptz), ('global_day', '', $2::timestamptz))`;

/**
 * Records reservation $8 (model $9, made at $10) and adds $4 micro-dollars to
 * the pending of all three counter rows if each stays within its limit ($5
 * global_day, $6 client_day, $7 client_hour). Returns the caps whose rows took
 * the hold: fewer than three means refused, and the caller must roll back.
 */
export const RESERVE = `
WITH hold AS (
  INSERT INTO spend_reservations (id, client_id, model, hour_starts_at, day_starts_at, worst_micros, created_at)
  VALUES ($8, $1, $9, $3::timestamptz, $2::timestamptz, $4::bigint, $10::timestamptz)
)
INSERT INTO spend_counters AS k (cap, client_id, starts_at, pending_micros)
VALUES ('client_day', $1, $2::timestamptz, $4::bigint), ('client_hour', $1, $3::timestamptz, $4::bigint), ('global_day', '', $2::timestamptz, $4::bigint)
ON CONFLICT (cap, client_id, starts_at) DO UPDATE SET pending_micros = k.pending_micros + EXCLUDED.pending_micros
WHERE k.settled_micros + k.pending_micros + EXCLUDED.pending_micros
      <= CASE k.cap WHEN 'global_day' THEN $5::bigint WHEN 'client_day' THEN $6::bigint ELSE $7::bigint END
RETURNING k.cap`;

/** What counts against each cap now (settled + pending): $1 client, $2 day start, $3 hour start. */
export const USED = `
SELECT cap, (settled_micros + pending_micros)::text AS used FROM spend_counters
WHERE (cap, client_id, starts_at) IN ${KEYS}`;

/**
 * Closes reservation $1 as $2: 'settled' on $3 micro-dollars reported with
 * usage $4 (JSON text), or 'expired' ($3 null: at its worst case), at $5; and
 * moves the money on its three counter rows. A call is never settled above
 * its hold: LEAST keeps the amount within it (and the report, above it, is
 * kept in reported_micros as an overrun). So no counter's settled + pending
 * ever grows past what RESERVE checked against the cap. From pending, the hold leaves pending
 * and the amount enters settled; from expired (a late settle), the truth
 * replaces the worst case that was assumed. A settled reservation is left
 * alone, and only a pending one expires: the UPDATE's WHERE is re-checked on
 * the row as committed, so of two concurrent closes one does nothing.
 * Returns the counter rows it changed (none: nothing to do, or no such id).
 */
export const CLOSE = `
WITH closed AS (
  UPDATE spend_reservations
  SET status = $2, actual_micros = LEAST($3::bigint, worst_micros), reported_micros = COALESCE($3::bigint, reported_micros), usage = $4::text::jsonb,
      settled_at = CASE WHEN $2 = 'settled' THEN $5::timestamptz END,
      expired_at = CASE WHEN $2 = 'expired' THEN $5::timestamptz ELSE expired_at END
  WHERE id = $1 AND (status = 'pending' OR ($2 = 'settled' AND status = 'expired'))
  RETURNING client_id, hour_starts_at, day_starts_at, worst_micros, actual_micros,
            ($2 = 'expired' OR expired_at IS NULL) AS was_pending
), moves AS (
  SELECT client_id, hour_starts_at, day_starts_at,
         CASE WHEN was_pending THEN actual_micros ELSE actual_micros - worst_micros END AS settled_in,
         CASE WHEN was_pending THEN worst_micros ELSE 0 END AS pending_out
  FROM closed
)
INSERT INTO spend_counters AS k (cap, client_id, starts_at, settled_micros, pending_micros)
SELECT v.cap, v.client_id, v.starts_at, m.settled_in, m.pending_out
FROM moves m CROSS JOIN LATERAL (VALUES
  (1, 'client_day', m.client_id, m.day_starts_at), (2, 'client_hour', m.client_id, m.hour_starts_at), (3, 'global_day', '', m.day_starts_at)
) AS v(ord, cap, client_id, starts_at)
ORDER BY v.ord
-- The reservation made these rows, so this is always the conflict path; pending_micros here carries what leaves pending.
ON CONFLICT (cap, client_id, starts_at) DO UPDATE
SET settled_micros = k.settled_micros + EXCLUDED.settled_micros, pending_micros = k.pending_micros - EXCLUDED.pending_micros
RETURNING k.cap`;

/** Whether reservation $1 exists (to tell a repeated settle from an unknown id). */
export const EXISTS = `SELECT 1 AS one FROM spend_reservations WHERE id = $1`;

/** Settled micro-dollars of the current periods: $1 client, $2 day start, $3 hour start. */
export const SPENT = `
SELECT cap, settled_micros::text AS settled FROM spend_counters
WHERE (cap, client_id, starts_at) IN ${KEYS}`;

/** Up to 1000 reservations still pending that were made before $1. */
export const STALE = `
SELECT id FROM spend_reservations WHERE status = 'pending' AND created_at < $1::timestamptz ORDER BY created_at LIMIT 1000`;

/** The day's overruns (reported above the hold) and what is held now in all: $1 day start. */
export const DAY_FIGURES = `
SELECT (SELECT count(*)::int FROM spend_reservations WHERE day_starts_at = $1::timestamptz AND reported_micros > worst_micros) AS overruns,
       (SELECT pending_micros::text FROM spend_counters WHERE cap = 'global_day' AND client_id = '' AND starts_at = $1::timestamptz) AS pending`;

/**
 * Pruning: closed reservations of days before $1 (the current day's start),
 * and hourly counters of hours before $1 (the current hour's start) with
 * nothing pending. The daily counters stay: they are the days' totals.
 */
export const PRUNE_RESERVATIONS = `DELETE FROM spend_reservations WHERE status <> 'pending' AND day_starts_at < $1::timestamptz RETURNING 1`;
export const PRUNE_HOURS = `DELETE FROM spend_counters WHERE cap = 'client_hour' AND starts_at < $1::timestamptz AND pending_micros = 0 RETURNING 1`;
