// The network permission as the form shows it (components/settings/
// PermissionsFields.tsx, server-rendered): with no URL prefix, a sentence says
// that node and npm have no network either, not only curl; with a list, that
// they keep to it.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PermissionsFields } from "@/components/settings/PermissionsFields";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";

const text = (html: string) => html.replace(/<[^>]*>/g, "").replace(/&#x27;|&apos;/g, "'");
/** The text of the element with this data-testid, or null when there is none. */
function byTestId(html: string, id: string): string | null {
  const m = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return m ? text(m[2] ?? "") : null;
}

describe("PermissionsFields: the network", () => {
  it("off: says that curl, node and npm reach nothing", () => {
    const html = renderToStaticMarkup(<PermissionsFields initial={DEFAULT_PERMISSIONS} />);
    expect(byTestId(html, "perm-network-status")).toBe("Network: off");
    expect(byTestId(html, "settings-network-off")).toBe("Network is off: curl, node and npm in this mind's shell reach nothing.");
    expect(byTestId(html, "settings-network-node")).toBeNull();
  });

  it("with a list: node and npm keep to it, and npm install needs the registry in it", () => {
    const html = renderToStaticMarkup(<PermissionsFields initial={{ ...DEFAULT_PERMISSIONS, network: { allow: ["https://api.example.com/v1/"] } }} />);
    expect(byTestId(html, "perm-network-status")).toBe("Network: on, only under https://api.example.com/v1/");
    expect(byTestId(html, "settings-network-off")).toBeNull();
    expect(byTestId(html, "settings-network-node")).toBe("node and npm keep to the same list; npm install works only when npm's registry is under it.");
  });
});
