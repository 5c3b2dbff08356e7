import "server-only";
// `npx reverie runner`: a server runner alone, for more processes on one
// PostgreSQL (DATABASE_URL): each takes any due wake, and a process that
// dies loses its minds to the others when their leases lapse.
// `npx reverie minds [--json]`: the minds the server keeps, where each
// lives, its lease epoch and what it spent on the server today.
// `npx reverie minds --forget <mind>`: the host forgets a mind, steps and all
// (lib/server/sync/forget.ts, the one way past their append-only trigger).
//
// Run by bin/reverie.mjs under tsx (with the react-server condition, so the
// server's modules load outside Next), not from the CLI's bundle: these
// verbs speak to the database, the others only read files.
import { openSql, type Sql } from "../db/sql";
import { parseProxyConfig } from "../proxy/config";
import { forgetMind } from "../sync/forget";
import { runnerConfig, newRunner } from "./runtime";

export const RUNNER_USAGE = `usage:
  reverie runner            host minds with keep-alive while no tab holds them (needs DATABASE_URL: PostgreSQL)
  reverie minds [--json]    the minds this server keeps alive: where each lives, its epoch, its spend today
  reverie minds --forget <mind>
                            forget a mind (its full id, as --json prints it): every row this server keeps for it, steps included

The runner reads the app's settings: RUNNER_MAX_MINDS, RUNNER_LEASE_S, RUNNER_NETWORK_ALLOW,
RUNNER_KEY_SECRET, OUTBOUND_ALLOW and the proxy's LLM_PROXY_* (a mind on the host's proxy is
under its caps).`;

type Out = { out: (s: string) => void; err: (s: string) => void };
const std: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

export async function runnerMain(argv: string[], io: Out = std): Promise<number> {
  const [verb, ...rest] = argv;
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(`${RUNNER_USAGE}\n`);
    return 0;
  }
  if (verb === "runner") return runner(io);
  if (verb === "minds") return minds(rest, io);
  io.err(`${RUNNER_USAGE}\n`);
  return 2;
}

async function runner(io: Out): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    io.err("reverie runner: DATABASE_URL is not set. With the default PGlite database the runner runs inside `npm start` (one process); more runner processes need PostgreSQL.\n");
    return 2;
  }
  const cfg = runnerConfig();
  if (cfg.kind === "invalid") {
    io.err(`reverie runner: ${cfg.message}\n`);
    return 2;
  }
  if (cfg.kind === "off") {
    io.err(`reverie runner: the runner is off (${cfg.why})\n`);
    return 2;
  }
  // A runner must not spend without caps: a proxy configured without them is refused here as by `npm start`.
  const proxy = parseProxyConfig(process.env);
  if (proxy.kind === "invalid") {
    io.err(`reverie runner: ${proxy.message}\n`);
    return 2;
  }
  const sql = await openSql({ databaseUrl: url });
  const r = newRunner(sql, cfg.config);
  await r.start();
  io.out(`reverie runner: ${r.holder}: hosting up to ${cfg.config.maxMinds} minds (lease ${cfg.config.leaseS} s); ${proxy.kind === "ok" ? "on the host's proxy" : "no proxy: only minds with a kept key"}\n`);
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => resolve());
  });
  io.out("reverie runner: stopping (hosted minds are stopped and their leases let go)\n");
  await r.stop();
  await sql.close();
  return 0;
}

interface MindLine {
  mind: string;
  name: string;
  keep_alive: boolean;
  halted: boolean;
  home: "tab" | "server" | "none";
  holder: string | null;
  epoch: number | null;
  spend_today_usd: number;
}

export async function listMinds(sql: Sql, now = new Date()): Promise<MindLine[]> {
  const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const rows = await sql.query<{ id: string; name: string; keep_alive: boolean; halted: boolean; holder: string | null; epoch: string | number | null; live: boolean | null; spend: number | null }>(
    `SELECT m.id, m.name, m.keep_alive, m.halted_at IS NOT NULL AS halted, l.holder, l.epoch, l.expires_at > now() AS live,
       (SELECT sum(u.usd) FROM mind_usage u WHERE u.mind = m.id AND u.ts_ms >= $1) AS spend
     FROM sync_minds m LEFT JOIN mind_leases l ON l.mind = m.id
     WHERE m.keep_alive OR l.mind IS NOT NULL ORDER BY m.name, m.id`,
    [dayStart],
  );
  return rows.map((r) => ({
    mind: r.id,
    name: r.name,
    keep_alive: Boolean(r.keep_alive),
    halted: Boolean(r.halted),
    // A live lease says who writes it; a kept-alive mind with none waits on the server for its next wake.
    home: r.live && r.holder ? (r.holder.startsWith("runner:") ? "server" : "tab") : r.keep_alive && !r.halted ? "server" : "none",
    holder: r.live ? r.holder : null,
    epoch: r.epoch === null ? null : Number(r.epoch),
    spend_today_usd: Number(r.spend ?? 0),
  }));
}

async function minds(args: string[], io: Out): Promise<number> {
  const at = args.indexOf("--forget");
  const forget = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && (!forget || forget.startsWith("-"))) {
    io.err(`reverie minds: --forget needs the id of the mind to forget\n${RUNNER_USAGE}\n`);
    return 2;
  }
  const rest = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  const json = rest.includes("--json");
  const unknown = rest.filter((a) => a !== "--json");
  if (unknown.length) {
    io.err(`reverie minds: unknown argument ${unknown[0]}\n${RUNNER_USAGE}\n`);
    return 2;
  }
  const sql = await openSql({ databaseUrl: process.env.DATABASE_URL || undefined });
  try {
    if (forget !== undefined) {
      if (!(await forgetMind(sql, forget))) {
        io.err(`reverie minds: there is no mind ${forget} on this server (reverie minds --json prints the full ids)\n`);
        return 1;
      }
      io.out(json ? `${JSON.stringify({ forgotten: forget })}\n` : `forgot mind ${forget}: nothing of it is kept on this server any more, its steps included\n`);
      return 0;
    }
    const lines = await listMinds(sql);
    if (json) io.out(`${JSON.stringify({ minds: lines }, null, 2)}\n`);
    else if (!lines.length) io.out("no minds kept alive on this server\n");
    else {
      const table = [["MIND", "NAME", "LIVES IN", "EPOCH", "TODAY (USD)", "KEEP-ALIVE"]].concat(
        lines.map((l) => [l.mind.slice(0, 8), l.name.slice(0, 30), l.halted ? "stopped" : l.home, l.epoch === null ? "-" : String(l.epoch), l.spend_today_usd.toFixed(4), l.keep_alive ? "on" : "off"]),
      );
      const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      for (const row of table) io.out(`${row.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()}\n`);
    }
    return 0;
  } finally {
    await sql.close();
  }
}

// Run as a script (bin/reverie.mjs spawns this file for the two verbs).
if (process.argv[1] && /runner[\\/]main\.ts$/.test(process.argv[1])) {
  runnerMain(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`reverie: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
