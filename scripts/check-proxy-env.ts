// Run by scripts/start.mjs before it builds or serves: a proxy configured
// without its caps (or with any other bad setting), or a sync limit that is
// not a number, must stop `npm start`, with a message naming each variable
// at fault.
import { parseProxyConfig } from "../lib/server/proxy/config";
import { parseQuotas } from "../lib/server/sharing/quotas";

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
