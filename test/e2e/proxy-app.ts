// The built app served a second time, with extra env (e.g. the proxy pointed
// at test/fixtures/model-server.ts), for tests that need a differently
// configured server than the one global-setup starts. Needs the build that
// global-setup made; it does not build. Each app runs in a fresh working
// folder, so (without DATABASE_URL) its PGlite ledger is its own: spend from
// an earlier run or another app never counts against this one's caps.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveBuiltApp, stopApp } from "./serve";

export async function startProxyApp(env: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("startProxyApp serves the built app, and there is no build (.next/BUILD_ID); run it from the e2e project, whose global setup builds");
  const cwd = mkdtempSync(join(tmpdir(), "reverie-proxy-app-"));
  const removeCwd = () => rmSync(cwd, { recursive: true, force: true });
  let served: Awaited<ReturnType<typeof serveBuiltApp>>;
  try {
    served = await serveBuiltApp({ ...process.env, ...env }, { cwd });
  } catch (e) {
    removeCwd();
    throw e;
  }
  // The ledger opens on the first proxy call (a fresh PGlite takes seconds, more on a busy machine): open it now, not in a test's first request.
  if (env.LLM_PROXY_UPSTREAM_URL) await fetch(`${served.url}/api/llm/v1/models`, { signal: AbortSignal.timeout(120_000) }).catch(() => {});
  return {
    url: served.url,
    async close() {
      await stopApp(served.child);
      removeCwd();
    },
  };
}

/** The proxy's settings in front of the scripted model server, for tests where its caps are not the point: one model ("scripted", 0.1 USD per token each way), caps of 10 USD a day (5 an hour per client) and 0.5 a request. */
export function scriptedProxyEnv(upstreamUrl: string, upstreamKey: string): Record<string, string> {
  return {
    LLM_PROXY_UPSTREAM_URL: upstreamUrl,
    LLM_PROXY_API_KEY: upstreamKey,
    LLM_PROXY_MODELS: "scripted",
    LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: 0.1, output: 0.1 } }),
    LLM_PROXY_CAP_DAY_USD: "10",
    LLM_PROXY_CLIENT_CAP_HOUR_USD: "5",
    LLM_PROXY_CLIENT_CAP_DAY_USD: "10",
    LLM_PROXY_REQUEST_CAP_USD: "0.5",
  };
}
