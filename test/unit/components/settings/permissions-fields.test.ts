// The permissions as typed into the form (seconds, KiB/MiB, a URL a line),
// read back into Permissions or into problems a person can act on; and the
// one-line summary on the mind's page.
import { describe, expect, it } from "vitest";
import { formatBytes, LIMIT_FIELDS, readPermissionFields, summarize, unitFor } from "@/components/settings/permissions-form";
import { DEFAULT_PERMISSIONS, type Permissions } from "@/lib/trajectory/permissions";

/** The form as PermissionsFields renders it for the defaults, with `change` on top. */
function form(change: Record<string, string | null> = {}): FormData {
  const fields: Record<string, string | null> = {
    net_allow: "",
    silence_s: "60",
    wall_s: "900",
    max_commands: "100000",
    max_output_bytes: "1",
    max_output_bytes_unit: "MiB",
    max_workspace_bytes: "256",
    recursion_depth: "2",
    child_iterations: "8",
    ...change,
  };
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) if (v !== null) f.set(k, v);
  return f;
}

describe("readPermissionFields", () => {
  it("the untouched form is the defaults: network off, no Node", () => {
    expect(readPermissionFields(form())).toEqual({ ok: true, permissions: DEFAULT_PERMISSIONS });
  });

  it("reads an allow-list a line each (blank lines and spaces ignored), the checkbox and the units", () => {
    const f = form({
      net_allow: "https://api.example.com/v1/\r\n\n  http://localhost:11434  \n",
      webcontainer: "on",
      silence_s: "2.5",
      max_output_bytes: "64",
      max_output_bytes_unit: "KiB",
      max_workspace_bytes: "1.5",
      recursion_depth: "0",
    });
    const expected: Permissions = {
      network: { allow: ["https://api.example.com/v1/", "http://localhost:11434"] },
      webcontainer: true,
      limits: { ...DEFAULT_PERMISSIONS.limits, silence_s: 2.5, max_output_bytes: 64 * 1024, max_workspace_bytes: 1.5 * 1024 * 1024, recursion_depth: 0 },
    };
    expect(readPermissionFields(f)).toEqual({ ok: true, permissions: expected });
  });

  it("reports each bad URL by its line", () => {
    const f = form({ net_allow: "https://ok.example.com/\nftp://files.example.com/\n\n/relative\nhttps://me:secret@example.com/" });
    const why = "an allowed URL must be a full http(s) URL such as https://api.example.com/v1/";
    expect(readPermissionFields(f)).toEqual({
      ok: false,
      problems: [`Network, line 2 ("ftp://files.example.com/"): ${why}`, `Network, line 4 ("/relative"): ${why}`, `Network, line 5 ("https://me:secret@example.com/"): ${why}`],
    });
  });

  it("reports limits out of range in the unit the person typed", () => {
    const f = form({ silence_s: "0", wall_s: "", recursion_depth: "9", child_iterations: "2.5", max_output_bytes: "65", max_output_bytes_unit: "MiB", max_workspace_bytes: "abc", max_commands: null });
    expect(readPermissionFields(f)).toEqual({
      ok: false,
      problems: [
        "Stop a block after this long with no output: more than 0 s",
        "Longest a block may run: enter a number",
        "Commands one block may run: enter a number",
        "Output kept from one block (stdout and stderr each): at most 64 MiB",
        "Space the workspace may use: enter a number",
        "How deep nested shellm runs may go (0: none): at most 8 levels",
        "Steps a nested run may take: a whole number",
      ],
    });
  });

  it("a list longer than 50 prefixes is refused", () => {
    const lines = Array.from({ length: 51 }, (_, i) => `https://h${i}.example.com/`).join("\n");
    expect(readPermissionFields(form({ net_allow: lines }))).toEqual({ ok: false, problems: ["Network: at most 50 URL prefixes (51 given)"] });
  });
});

describe("units", () => {
  const output = LIMIT_FIELDS.find((f) => f.key === "max_output_bytes");
  it("a byte limit shows in the largest unit that divides it", () => {
    expect([1024 * 1024, 64 * 1024, 1536, 3 * 1024 * 1024 + 512].map((v) => output && unitFor(output, v).label)).toEqual(["MiB", "KiB", "KiB", "KiB"]);
    expect([1024 * 1024, 64 * 1024, 1536, 512, 1.5 * 1024 * 1024].map(formatBytes)).toEqual(["1 MiB", "64 KiB", "1.5 KiB", "512 B", "1.5 MiB"]);
  });
});

describe("summarize", () => {
  it("says network and Node are off by default, and the limits", () => {
    expect(summarize(DEFAULT_PERMISSIONS)).toBe(
      "Network: off · Node: off · silence 60 s · wall 900 s · 100,000 commands · output 1 MiB · workspace 256 MiB · depth 2 · nested runs 8 steps",
    );
  });

  it("lists the allowed prefixes", () => {
    const p: Permissions = { network: { allow: ["https://a.com/v1", "https://b.com"] }, webcontainer: true, limits: { ...DEFAULT_PERMISSIONS.limits, recursion_depth: 0 } };
    expect(summarize(p)).toBe(
      "Network: https://a.com/v1, https://b.com · Node: on when the browser allows it · silence 60 s · wall 900 s · 100,000 commands · output 1 MiB · workspace 256 MiB · depth 0 · nested runs 8 steps",
    );
  });
});
