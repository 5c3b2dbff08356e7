// Run by scripts/start.mjs before it builds or serves: a proxy configured
// without its caps (or with any other bad setting) must stop `npm start`,
// with a message naming each variable at fault.
import { parseProxyConfig } from "../lib/server/proxy/config";

const result = parseProxyConfig(process.env);
if (result.kind === "invalid") {
  console.error(result.message);
  process.exit(1);
}
if (result.kind === "ok") console.log(`LLM proxy: ${result.config.models.length} model(s), caps in USD: ${JSON.stringify(result.config.caps)}`);
