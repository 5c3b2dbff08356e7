// What a mind's sandbox may do, declared when the mind is created and changed
// only by its human (each change is a `config` step). Nothing the agent runs
// can change these: the sandbox reads them, it never writes them.
import * as z from "zod";

/** Every execution limit of the sandbox. The one source for lib/shell/limits. */
export const SandboxLimits = z.object({
  /** A block with no sign of life (output of the mind's commands, nested-run beacons) this long is stopped. */
  silence_s: z.number().positive().max(3600),
  /** Hard ceiling on one block's wall time, beacons or not. */
  wall_s: z.number().positive().max(24 * 3600),
  /** Commands one block may run (loop iterations included). */
  max_commands: z.number().int().positive().max(10_000_000),
  /** Bytes of stdout, and of stderr, kept from one block; the rest is cut with a note. */
  max_output_bytes: z.number().int().positive().max(64 * 1024 * 1024),
  /** Bytes the workspace may hold. */
  max_workspace_bytes: z.number().int().positive().max(4 * 1024 * 1024 * 1024),
  /** How deep `shellm` may nest (0: no nested runs). */
  recursion_depth: z.number().int().min(0).max(8),
  /** Iterations a nested run may take before it is ended. */
  child_iterations: z.number().int().positive().max(100),
});
export type SandboxLimits = z.infer<typeof SandboxLimits>;

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  silence_s: 60,
  wall_s: 900,
  max_commands: 100_000,
  max_output_bytes: 1024 * 1024,
  max_workspace_bytes: 256 * 1024 * 1024,
  recursion_depth: 2,
  child_iterations: 8,
};

/** A URL prefix `curl` (and `skills install`) may reach: scheme and host, optionally a path. */
export const UrlPrefix = z
  .string()
  .trim()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && u.host !== "" && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "an allowed URL must be a full http(s) URL such as https://api.example.com/v1/");

export const Permissions = z.object({
  /** Network for `curl`, `skills install` and real Node (node, npm, npx in the WebContainer): off when the list is empty. */
  network: z.object({ allow: z.array(UrlPrefix).max(50) }).default({ allow: [] }),
  /** Real Node (node, npm, npx) in a WebContainer on the page, when the browser allows it. */
  webcontainer: z.boolean().default(false),
  limits: SandboxLimits.default(DEFAULT_SANDBOX_LIMITS),
});
export type Permissions = z.infer<typeof Permissions>;

export const DEFAULT_PERMISSIONS: Permissions = { network: { allow: [] }, webcontainer: false, limits: DEFAULT_SANDBOX_LIMITS };

/** Is `url` under one of the allowed prefixes? Same rule as just-bash's curl: origin equal, path a prefix at a segment boundary. */
export function urlAllowed(url: string, allow: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  return allow.some((prefix) => {
    const p = new URL(prefix);
    if (p.origin !== target.origin) return false;
    if (p.pathname === "/" || p.pathname === "") return true;
    const base = p.pathname.endsWith("/") ? p.pathname : `${p.pathname}/`;
    return target.pathname === p.pathname || target.pathname.startsWith(base);
  });
}
