// Run by scripts/start.mjs before it builds or serves: a proxy configured
// without its caps (or with any other bad setting), a sync limit that is
// not a number, or a runner setting that is wrong, must stop `npm start`, with a message naming each variable
// at fault.
import { parseProxyConfig } from "../lib/server/proxy/config";
import { parseQuotas } from "../lib/server/sharing/quotas";
import { parseRunnerConfig } from "../lib/server/runner/config";
import { parseNetworkAllow } from "../lib/server/runner/network";
import { listedPortText, parseOutboundAllow } from "../lib/server/net/outbound-allow";

const result = parseProxyConfig(process.env);
if (result.kind === "invalid") {
  console.error(result.message);
  process.exit(1);
}
if (result.kind === "ok") console.log(`LLM proxy: ${result.config.models.length} model(s), caps in USD: ${JSON.stringify(result.config.caps)}`);

// The sync API's limits, likewise: a bad value stops the start, naming it.
const quotas = parseQuotas(process.env);
if (!quotas.ok) {
  console.error(`The sync API's limits are not configured correctly, so the server will not start:\n  - ${quotas.problems.join("\n  - ")}`);
  process.exit(1);
}

// The addresses of the host's own network the server may reach for a user (OUTBOUND_ALLOW), likewise: the server's, whatever runs.
const outbound = parseOutboundAllow(process.env.OUTBOUND_ALLOW);
if (!outbound.ok) {
  console.error(`OUTBOUND_ALLOW is not written correctly, so the server will not start:\n  - ${outbound.problems.join("\n  - ")}`);
  process.exit(1);
}
if (outbound.entries.length) console.log(`Outbound: an address a user gives may be on this host's own network only at ${outbound.entries.map(listedPortText).join(" ")} (OUTBOUND_ALLOW)`);

// The runner's settings, likewise (RUNNER_MAX_MINDS, RUNNER_LEASE_S, RUNNER_NETWORK_ALLOW, RUNNER_KEY_SECRET).
// A runner never spends without caps: on the host's proxy it is under the proxy's (checked above), with a kept key under the mind's own.
const runner = parseRunnerConfig(process.env, parseNetworkAllow);
if (runner.kind === "invalid") {
  console.error(`The runner is not configured correctly, so the server will not start:\n  - ${runner.problems.join("\n  - ")}`);
  process.exit(1);
}
if (runner.kind === "ok") {
  const embedded = process.env.RUNNER_EMBEDDED === "0" ? "not in this process (RUNNER_EMBEDDED=0: run `npx reverie runner`)" : "in this process";
  console.log(`Runner: up to ${runner.config.maxMinds} minds kept alive ${embedded}, lease ${runner.config.leaseS} s, network ${runner.config.networkAllow.length ? runner.config.networkAllow.join(" ") : "off"}`);
}
