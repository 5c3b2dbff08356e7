// Hostile text for the XSS tests: each payload, if the page ever ran it or
// turned it into markup, would either set `window.__xss` or leave an element
// carrying `data-pwn` (or a javascript: link) in the DOM. The pages must show
// all of it as plain text. Prose is rendered as Markdown, so the corpus
// carries Markdown's own tricks too (javascript:/data: links of every
// spelling, reference links, HTML blocks, and images pointing at a tracker
// that no viewer's browser may ever fetch).
import type { Page } from "playwright-core";

/** A host no page may reach: an image or link target in the corpus. Any request to it is a leak. */
export const TRACKER = "http://xss-tracker.invalid";

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
  // Markdown's own: each set off by blank lines, so none is swallowed by an HTML block above it.
  `\n[ref link][evil] and ![ref image][pixel]\n\n[evil]: javascript:window.__xss='md-ref'\n[pixel]: ${TRACKER}/ref.png\n`,
  `\n[plain](javascript:window.__xss='md-plain') <javascript:window.__xss='md-autolink'> [upper](JaVaScRiPt:window.__xss='md-case') [spaced]( javascript:window.__xss='md-space' ) [vb](vbscript:msgbox(1)) [data](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3M9J2RhdGEnPC9zY3JpcHQ+) <data:text/html,<script>window.__xss='data-auto'</script>>\n`,
  `\n[title](https://example.com "x\\" onmouseover=\\"window.__xss='md-title'") [rel](/api/llm) [proto](//xss-tracker.invalid/p)\n`,
  `\n![tracker](${TRACKER}/pixel.png) ![inline svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) ![js](javascript:window.__xss='md-img-js')\n`,
  `\n<div data-pwn=1>\n\n**markdown inside an HTML block** <img src="${TRACKER}/block.png" onerror="window.__xss='md-block'">\n\n</div>\n`,
  `\n\`\`\`html\n<script>window.__xss='fenced'</script><img src=x onerror=window.__xss='fenced-img' data-pwn=1>\n\`\`\`\n`,
];

/** All payloads in one text, one per line (for a thought, an output or a message). */
export const XSS_TEXT = XSS_PAYLOADS.join("\n");

/** A short one that fits a name field (names are capped at 40 characters on invites). */
export const XSS_NAME = `<img src=x onerror=window.__xss=1 data-pwn>`;
/** Another, for a person writing to the mind (a sender named as the mind itself would be the mind). */
export const XSS_PERSON = `<svg onload=window.__xss=2 data-pwn>`;

/** Watch a page for anything the corpus could make it do: dialogs, `window.__xss` set by any frame, and requests to the tracker. */
export function watchForXss(page: Page): { dialogs: string[]; tracked: string[] } {
  const seen = { dialogs: [] as string[], tracked: [] as string[] };
  page.on("dialog", (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  // Fired before the request leaves (even for a host that does not resolve), so an attempt counts.
  page.on("request", (r) => {
    if (r.url().startsWith(TRACKER)) seen.tracked.push(r.url());
  });
  return seen;
}

/** What the page shows of an attack: any markup or script that came from the corpus. */
export function xssTraces(page: Page): Promise<{ xss: unknown; pwn: number; jsLinks: number; foreignFrames: number; images: number }> {
  return page.evaluate(() => ({
    xss: (window as unknown as { __xss?: unknown }).__xss ?? null,
    pwn: document.querySelectorAll("[data-pwn]").length,
    jsLinks: [...document.querySelectorAll("a[href], iframe[src], embed[src], object[data]")].filter((e) =>
      /^\s*(javascript|data):/i.test(e.getAttribute("href") ?? e.getAttribute("src") ?? e.getAttribute("data") ?? ""),
    ).length,
    foreignFrames: document.querySelectorAll("iframe, object, embed").length,
    // Whatever Markdown could turn into a loaded resource: no image of the mind's anywhere.
    images: document.querySelectorAll("img, picture, video, audio, source, svg image").length,
  }));
}
