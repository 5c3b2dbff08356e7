// Hostile text for the XSS tests: each payload, if the page ever ran it or
// turned it into markup, would either set `window.__xss` or leave an element
// carrying `data-pwn` (or a javascript: link) in the DOM. The pages must show
// all of it as plain text.
import type { Page } from "playwright-core";

export const XSS_PAYLOADS: readonly string[] = [
  `<script>window.__xss='script'</script>`,
  `<img src=x onerror="window.__xss='img'" data-pwn=1>`,
  `"><img src=x onerror=window.__xss='attr' data-pwn=1>`,
  `'><svg onload="window.__xss='svg'" data-pwn=1><script>window.__xss='svg-script'</script></svg>`,
  `<a href="javascript:window.__xss='href'" data-pwn=1>click me</a>`,
  `[click me](javascript:window.__xss='md-link') [x](javascript&#58;window.__xss='md-entity')`,
  `![pic](x" onerror="window.__xss='md-img') <javascript:window.__xss='autolink'>`,
  `<iframe srcdoc="<script>parent.__xss='iframe'</script>" data-pwn=1></iframe>`,
  `<style data-pwn=1>body{display:none}</style><div style="background:url(javascript:window.__xss='css')" data-pwn=1>css</div>`,
  `<details open ontoggle="window.__xss='details'" data-pwn=1>d</details><math><mtext><table><mglyph><style><img src=x onerror=window.__xss='mxss' data-pwn=1>`,
  `javascript:window.__xss='bare' {{constructor.constructor('window.__xss="template"')()}} \${window.__xss='tpl'}`,
  `<object data="data:text/html,<script>parent.__xss='object'</script>" data-pwn=1></object><embed src="javascript:window.__xss='embed'" data-pwn=1>`,
];

/** All payloads in one text, one per line (for a thought, an output or a message). */
export const XSS_TEXT = XSS_PAYLOADS.join("\n");

/** A short one that fits a name field (names are capped at 40 characters on invites). */
export const XSS_NAME = `<img src=x onerror=window.__xss=1 data-pwn>`;
/** Another, for a person writing to the mind (a sender named as the mind itself would be the mind). */
export const XSS_PERSON = `<svg onload=window.__xss=2 data-pwn>`;

/** Watch a page for anything the corpus could make it do: dialogs, and `window.__xss` set by any frame. */
export function watchForXss(page: Page): { dialogs: string[] } {
  const seen = { dialogs: [] as string[] };
  page.on("dialog", (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  return seen;
}

/** What the page shows of an attack: any markup or script that came from the corpus. */
export function xssTraces(page: Page): Promise<{ xss: unknown; pwn: number; jsLinks: number; foreignFrames: number }> {
  return page.evaluate(() => ({
    xss: (window as unknown as { __xss?: unknown }).__xss ?? null,
    pwn: document.querySelectorAll("[data-pwn]").length,
    jsLinks: [...document.querySelectorAll("a[href], iframe[src], embed[src], object[data]")].filter((e) =>
      /^\s*(javascript|data):/i.test(e.getAttribute("href") ?? e.getAttribute("src") ?? e.getAttribute("data") ?? ""),
    ).length,
    foreignFrames: document.querySelectorAll("iframe, object, embed").length,
  }));
}
