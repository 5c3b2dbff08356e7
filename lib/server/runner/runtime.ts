import "server-only";
// The runner as the running server sees it: its configuration from the
// environment, the process's runner (embedded in `npm start` unless
// RUNNER_EMBEDDED=0, or alone in `npx reverie runner`), and the hooks the
// sync routes call so a keep-alive mind is woken where it lives: when its
// tab's lease would lapse, and when a guest writes to it.
import { serverSql, type Sql } from "../db/sql";
import { proxyConfig, runnerChatCompletions } from "../proxy/runtime";
import { outboundFetch, outboundGuard } from "../net/outbound";
import { parseRunnerConfig, type RunnerConfig, type RunnerConfigResult } from "./config";
import { serverModel } from "./model";
import { hostBoundNetwork, parseNetworkAllow } from "./network";
import { Runner, type RunnerOptions } from "./runner";
import { runnerRoutes } from "./routes";
import { allMethods } from "../http/route";
import { openWakeQueue, type WakeQueue } from "./wakes";

type Holder = { [RUNNER]?: Promise<Runner>; [SENDER]?: Promise<WakeQueue>; [CONFIG]?: RunnerConfigResult };
// On globalThis: Next may load this module more than once in one process (route bundles, instrumentation), and there must be one runner.
const RUNNER = Symbol.for("reverie.runner");
const SENDER = Symbol.for("reverie.runner.sender");
const CONFIG = Symbol.for("reverie.runner.config");
const holder = globalThis as Holder;

/** The environment is read once per process: a change needs a restart (and `npm start` checks it first). */
export function runnerConfig(): RunnerConfigResult {
  return (holder[CONFIG] ??= parseRunnerConfig(process.env, parseNetworkAllow));
}

/** This server's runner over `sql`; `tuning` is for tests (how often it polls, and its log). */
export function newRunner(sql: Sql, config: RunnerConfig, tuning: Pick<RunnerOptions, "pollMs" | "wakes" | "log"> = {}): Runner {
  return new Runner({
    ...tuning,
    sql,
    maxMinds: config.maxMinds,
    leaseS: config.leaseS,
    model: serverModel({ sql, proxy: proxyConfig, proxyCall: runnerChatCompletions, keySecret: config.keySecret, outboundFetch: outboundFetch(outboundGuard(config.outboundAllow)) }),
    network: (settings) => hostBoundNetwork(settings.permissions, config.networkAllow),
  });
}

/** Start this process's runner (once); undefined when the runner is off or misconfigured (the reason is logged). */
export function startRunner(): Promise<Runner> | undefined {
  const cfg = runnerConfig();
  if (cfg.kind !== "ok") {
    if (cfg.kind === "invalid") console.error(`runner: not started: ${cfg.message}`);
    return undefined;
  }
  if (!holder[RUNNER]) {
    const starting = (async () => {
      const runner = newRunner(await serverSql(), cfg.config);
      await runner.start();
      console.error(`runner: hosting up to ${cfg.config.maxMinds} minds (lease ${cfg.config.leaseS} s) as ${runner.holder}`);
      return runner;
    })();
    holder[RUNNER] = starting;
    starting.catch((e: unknown) => {
      console.error(`runner: could not start: ${e instanceof Error ? e.message : String(e)}`);
      if (holder[RUNNER] === starting) delete holder[RUNNER];
    });
  }
  return holder[RUNNER];
}

/** The wake queue to send to: this process's runner's, else one opened only to send (the runner lives in another process). */
async function wakeSender(): Promise<WakeQueue | undefined> {
  if (runnerConfig().kind !== "ok") return undefined;
  const runner = holder[RUNNER];
  if (runner) return (await runner).wakes();
  if (!holder[SENDER]) {
    const opening = serverSql().then((sql) => openWakeQueue(sql));
    holder[SENDER] = opening;
    opening.catch(() => {
      if (holder[SENDER] === opening) delete holder[SENDER];
    });
  }
  return holder[SENDER];
}

async function keptAlive(sql: Sql, mind: string): Promise<boolean> {
  const [row] = await sql.query<{ on: boolean }>("SELECT keep_alive AND halted_at IS NULL AS on FROM sync_minds WHERE id = $1", [mind]);
  return Boolean(row?.on);
}

/** What the sync routes tell the runner (lib/server/sharing/routes.ts RunnerHooks). */
export const runnerHooks = {
  /** A tab took, renewed or let go the lease: a keep-alive mind is looked at again when that lease would lapse. */
  async leaseChanged(sql: Sql, mind: string, expiresAt: Date): Promise<void> {
    const queue = await wakeSender();
    if (queue && (await keptAlive(sql, mind))) await queue.set(mind, new Date(expiresAt.getTime() + 1000), "scheduled");
  },
  /** A guest wrote: a keep-alive mind is woken at once (a runner that cannot take its lease puts the wake off). */
  async guestMessage(sql: Sql, mind: string): Promise<void> {
    const queue = await wakeSender();
    if (queue && (await keptAlive(sql, mind))) await queue.now(mind, "message");
  },
  /** Something comes in for a keep-alive mind at `at` (an alert storm's fold): wake it then, unless it wakes sooner. */
  async wakeBy(sql: Sql, mind: string, at: Date): Promise<void> {
    const queue = await wakeSender();
    if (queue && (await keptAlive(sql, mind))) await queue.by(mind, at, "message");
  },
  /** Keep-alive turned on (wake it now, or when a tab's lease lapses) or off (drop its wake). */
  async keepAliveChanged(sql: Sql, mind: string, on: boolean, leaseExpiresAt: Date | undefined): Promise<void> {
    const queue = await wakeSender();
    if (!queue) return;
    if (!on) return queue.clear(mind);
    await queue.set(mind, new Date(Math.max(Date.now(), (leaseExpiresAt?.getTime() ?? 0) + 1000)), "scheduled");
  },
};
export type RunnerHooks = typeof runnerHooks;

const routes = runnerRoutes({ sql: serverSql, config: runnerConfig, proxy: proxyConfig, keepAliveChanged: runnerHooks.keepAliveChanged });
export const runnerInfoRoute = allMethods(routes.info);
export const keepAliveRoute = allMethods(routes.keepAlive);
export const haltRoute = allMethods(routes.halt);
