// The permissions as a person types them (seconds, KiB, MiB, one URL prefix
// a line) and back: pure, so the new-mind form and the settings panel read
// the same fields the same way, and the summary says them the same way.
import { Permissions, SandboxLimits, UrlPrefix } from "@/lib/trajectory/permissions";
import { byteSize } from "@/lib/archive/limits";

export type LimitKey = keyof SandboxLimits;

export interface Unit {
  label: string;
  /** Stored value = typed value × factor. */
  factor: number;
}

export const KIB = 1024;
export const MIB = 1024 * 1024;

export interface LimitField {
  key: LimitKey;
  label: string;
  /** The first is the default; a field with two lets the person choose. */
  units: readonly Unit[];
}

const SECONDS = [{ label: "s", factor: 1 }] as const;

export const LIMIT_FIELDS: readonly LimitField[] = [
  { key: "silence_s", label: "Stop a block after this long with no output", units: SECONDS },
  { key: "wall_s", label: "Longest a block may run", units: SECONDS },
  { key: "max_commands", label: "Commands one block may run", units: [{ label: "commands", factor: 1 }] },
  {
    key: "max_output_bytes",
    label: "Output kept from one block (stdout and stderr each)",
    units: [
      { label: "KiB", factor: KIB },
      { label: "MiB", factor: MIB },
    ],
  },
  { key: "max_workspace_bytes", label: "Space the workspace may use", units: [{ label: "MiB", factor: MIB }] },
  { key: "recursion_depth", label: "How deep nested shellm runs may go (0: none)", units: [{ label: "levels", factor: 1 }] },
  { key: "child_iterations", label: "Steps a nested run may take", units: [{ label: "steps", factor: 1 }] },
];

/** The unit a stored value reads best in: the largest that divides it. */
export function unitFor(field: LimitField, value: number): Unit {
  const fits = field.units.filter((u) => value % u.factor === 0);
  return fits.reduce((a, b) => (b.factor > a.factor ? b : a), field.units[0] ?? { label: "", factor: 1 });
}

/** Form field names: the limit's key for its number, `<key>_unit` for its unit choice. */
export const NETWORK_FIELD = "net_allow";
export const WEBCONTAINER_FIELD = "webcontainer";
export const unitField = (key: LimitKey) => `${key}_unit`;

export type PermissionsRead = { ok: true; permissions: Permissions } | { ok: false; problems: string[] };

/** The permissions typed into PermissionsFields, or what is wrong with them (each problem names its field or line). */
export function readPermissionFields(f: FormData): PermissionsRead {
  const problems: string[] = [];
  const allow: string[] = [];
  const lines = String(f.get(NETWORK_FIELD) ?? "").split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const r = UrlPrefix.safeParse(line);
    if (r.success) allow.push(r.data);
    else problems.push(`Network, line ${i + 1} ("${line.trim()}"): ${r.error.issues[0]?.message ?? "not a URL"}`);
  });

  const limits: Partial<Record<LimitKey, number>> = {};
  for (const field of LIMIT_FIELDS) {
    const unit = field.units.find((u) => u.label === f.get(unitField(field.key))) ?? field.units[0] ?? { label: "", factor: 1 };
    const typed = String(f.get(field.key) ?? "").trim();
    const n = Number(typed);
    if (typed === "" || !Number.isFinite(n)) {
      problems.push(`${field.label}: enter a number`);
      continue;
    }
    // Bytes are whole: 1.5 KiB is 1536 bytes, and a fraction of a byte is rounded.
    const value = unit.factor > 1 ? Math.round(n * unit.factor) : n;
    const r = SandboxLimits.shape[field.key].safeParse(value);
    if (r.success) limits[field.key] = r.data;
    else problems.push(`${field.label}: ${rangeProblem(r.error.issues[0], unit)}`);
  }
  if (problems.length) return { ok: false, problems };
  const parsed = Permissions.safeParse({ network: { allow }, webcontainer: f.get(WEBCONTAINER_FIELD) === "on", limits });
  if (parsed.success) return { ok: true, permissions: parsed.data };
  // Each field passed on its own: what is left is the length of the list.
  return {
    ok: false,
    problems: parsed.error.issues.map((i) =>
      i.code === "too_big" && i.path[0] === "network" ? `Network: at most ${String(i.maximum)} URL prefixes (${allow.length} given)` : `${i.path.join(".")}: ${i.message}`,
    ),
  };
}

/** A zod number issue in the person's unit ("at most 3600 s"), not in bytes. */
function rangeProblem(issue: { code: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean } | undefined, unit: Unit): string {
  const inUnit = (v: unknown) => `${formatNumber(Number(v) / unit.factor)} ${unit.label}`;
  if (issue?.code === "too_small") return issue.inclusive ? `at least ${inUnit(issue.minimum)}` : `more than ${inUnit(issue.minimum)}`;
  if (issue?.code === "too_big") return issue.inclusive ? `at most ${inUnit(issue.maximum)}` : `less than ${inUnit(issue.maximum)}`;
  if (issue?.code === "invalid_type") return "a whole number";
  return "not a valid value";
}

const formatNumber = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** Bytes in the largest binary unit that keeps them short: "1 MiB", "64 KiB", "1.5 MiB" (the one formatter the import limits and sync quotas use too). */
export const formatBytes = byteSize;

/** One line, for the mind's page: "Network: off · Node: off · silence 60 s · …". */
export function summarize(p: Permissions): string {
  const l = p.limits;
  return [
    p.network.allow.length ? `Network: ${p.network.allow.join(", ")}` : "Network: off",
    `Node: ${p.webcontainer ? "on when the browser allows it" : "off"}`,
    `silence ${formatNumber(l.silence_s)} s`,
    `wall ${formatNumber(l.wall_s)} s`,
    `${formatNumber(l.max_commands)} commands`,
    `output ${formatBytes(l.max_output_bytes)}`,
    `workspace ${formatBytes(l.max_workspace_bytes)}`,
    `depth ${l.recursion_depth}`,
    `nested runs ${l.child_iterations} steps`,
  ].join(" · ");
}
