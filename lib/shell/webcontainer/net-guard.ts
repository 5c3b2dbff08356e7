// The mind's network permission for node, npm and npx in the WebContainer,
// which otherwise reach whatever the page can. Before each spawn the page
// writes the guard (./net-guard-script) into the container beside the minds'
// spaces, never in one, and starts the process with it preloaded:
//
//   NODE_OPTIONS        --require <guard>, then whatever the mind exported (ours
//                       first, so nothing of theirs runs before the guard)
//   REVERIE_NET_ALLOW   the allow-list, as JSON (the mind's value is dropped)
//   npm_config_offline  true, unless npm's registry is under an allowed prefix
//
// Written again before every spawn: a process in the shared container may
// have changed it. The guard is a defence, not a sandbox (see the script).
import { urlAllowed } from "../../trajectory/permissions";
import type { WebContainerFsLike } from "./api";
import { NET_GUARD_SCRIPT } from "./net-guard-script";

/** Container-relative, as the fs API takes it. A space is a mind's id, so never this. */
const GUARD_DIR = ".reverie";
export const GUARD_FILE = `${GUARD_DIR}/reverie-net-guard.cjs`;

/** npm's registry when nothing names another. */
export const NPM_REGISTRY = "https://registry.npmjs.org/";

const encoder = new TextEncoder();

export async function writeNetGuard(fs: WebContainerFsLike): Promise<void> {
  await fs.mkdir(GUARD_DIR, { recursive: true });
  await fs.writeFile(GUARD_FILE, encoder.encode(NET_GUARD_SCRIPT));
}

/** `--require <path>`, quoted as NODE_OPTIONS reads it when the path has a space or a quote. */
export function requireOption(guardPath: string): string {
  return `--require ${/[\s"]/.test(guardPath) ? JSON.stringify(guardPath) : guardPath}`;
}

/**
 * The environment a process in the container starts with: the mind's, with
 * the guard forced in. `guardPath` is absolute, as processes see it.
 */
export function guardedEnv(env: Readonly<Record<string, string>>, allow: readonly string[], guardPath: string): Record<string, string> {
  // npm reads its settings from the environment whatever their case.
  const named = (name: string) => Object.keys(env).filter((k) => k.toLowerCase() === name);
  const registries = named("npm_config_registry").map((k) => env[k] ?? "");
  const npmOnline = allow.length > 0 && (registries.length ? registries : [NPM_REGISTRY]).every((r) => urlAllowed(r, allow));
  const dropped = new Set([...named("reverie_net_allow"), ...(npmOnline ? [] : named("npm_config_offline"))]);

  const out = Object.fromEntries(Object.entries(env).filter(([k]) => !dropped.has(k)));
  const theirs = (env.NODE_OPTIONS ?? "").trim();
  out.NODE_OPTIONS = theirs ? `${requireOption(guardPath)} ${theirs}` : requireOption(guardPath);
  out.REVERIE_NET_ALLOW = JSON.stringify(allow);
  if (!npmOnline) out.npm_config_offline = "true";
  return out;
}
