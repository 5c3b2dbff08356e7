// Which URLs a mind's Markdown may link to. Everything a mind wrote is
// untrusted and a shared trajectory is shown to strangers, so only absolute
// http(s) and mailto links survive: no javascript:/data:/vbscript:, and no
// relative or protocol-relative URLs that would point into this app or
// borrow its origin.
import { defaultUrlTransform } from "react-markdown";

const ALLOWED = new Set(["http:", "https:", "mailto:"]);

/** The URL when it may be linked to, or "" when it may not (the link is then shown as text). */
export function safeHref(url: string): string {
  // react-markdown's own rule first (it drops unsafe protocols), then ours on top.
  const kept = defaultUrlTransform(url.trim());
  if (!kept) return "";
  let parsed: URL;
  try {
    parsed = new URL(kept);
  } catch {
    return "";
  }
  if (!ALLOWED.has(parsed.protocol)) return "";
  // `new URL` accepts "http:evil.com"-style forms only with a host; a mailto needs an address.
  if (parsed.protocol !== "mailto:" && !parsed.hostname) return "";
  if (parsed.protocol === "mailto:" && !parsed.pathname) return "";
  return parsed.href;
}
