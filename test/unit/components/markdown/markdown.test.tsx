// The Markdown renderer's safety rules, on its server-rendered HTML: links only
// to absolute http(s)/mailto URLs and apart from this page, no image ever
// loaded, raw HTML shown as text, scrollable blocks reachable by keyboard,
// very long texts left plain, and new texts plain until the deferred render.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, MARKDOWN_LIMIT, MarkdownNow } from "@/components/markdown/Markdown";
import { safeHref } from "@/components/markdown/safe-url";
import { XSS_TEXT } from "../../../e2e/xss-corpus";

const html = (text: string) => renderToStaticMarkup(<MarkdownNow text={text} />);
/** The rendered text with its tags removed (entities left as they are). */
const textOf = (out: string) => out.replace(/<[^>]*>/g, "");
/** Every opening tag's name, in order. */
const tagsOf = (out: string) => [...out.matchAll(/<([a-z][a-z0-9]*)/gi)].map((m) => m[1]);
const decode = (t: string) => t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, "&");
const LINK = 'target="_blank" rel="noopener noreferrer nofollow"';

describe("links", () => {
  it("keeps an http(s) link, opened apart from this page, and a mailto", () => {
    const out = html("see [the docs](https://example.com/a?b=1) or [write](mailto:ada@example.com)");
    expect(out).toContain(`<a href="https://example.com/a?b=1" ${LINK}`);
    expect(out).toContain(`<a href="mailto:ada@example.com" ${LINK}`);
    expect(out.match(/<a /g)).toHaveLength(2);
  });

  it.each([
    ["an inline javascript: link", "[click](javascript:alert(1))", "click"],
    ["an autolink", "<javascript:alert(2)>", "javascript:alert(2)"],
    ["a reference link", "[ref][1]\n\n[1]: javascript:alert(3)", "ref"],
    ["an entity-spelled scheme", "[ent](javascript&#58;alert(4))", "ent"],
    ["a mixed-case scheme with spaces", "[mc]( JaVaScRiPt:alert(5) )", "mc"],
    ["a data: URL", "[d](data:text/html;base64,PHNjcmlwdD4=)", "d"],
    ["a vbscript: URL", "[v](vbscript:msgbox(1))", "v"],
    ["a relative URL into this app", "[r](/api/llm/chat)", "r"],
    ["a protocol-relative URL", "[p](//evil.example/x)", "p"],
    ["a fragment", "[f](#top)", "f"],
  ])("shows %s as text, not a link", (_what, md, text) => {
    const out = html(md);
    expect(out).not.toMatch(/<a[\s>]/);
    expect(out).not.toMatch(/href=/);
    expect(textOf(out)).toContain(text);
  });

  it("safeHref keeps only absolute http, https and mailto URLs", () => {
    expect(["https://example.com/x", "http://example.com", "mailto:a@b.example"].map(safeHref)).toEqual(["https://example.com/x", "http://example.com/", "mailto:a@b.example"]);
    expect(["javascript:alert(1)", "data:image/png;base64,AA", "/x", "//evil.example", "x.png", "ftp://example.com", "http:", "mailto:", "file:///etc/passwd", ""].map(safeHref)).toEqual(Array(10).fill(""));
  });
});

describe("images", () => {
  it("are never loaded: their alt text, and a plain link for an http(s) source", () => {
    const out = html("![a cat](https://evil.example/track.png) and ![pixel](data:image/gif;base64,R0lGOD) ![](javascript:alert(1))");
    expect(out).not.toMatch(/<img/);
    expect(out).not.toMatch(/src=/);
    expect(textOf(out)).toBe("image: a cat (https://evil.example/track.png) and image: pixel image: no description");
    expect(out.match(/<a /g)).toHaveLength(1);
    expect(out).toContain(`<a href="https://evil.example/track.png" ${LINK}`);
  });

  it("a reference-style image is not loaded either", () => {
    const out = html("![x][img]\n\n[img]: https://evil.example/ref.png");
    expect(out).not.toMatch(/<img/);
    expect(textOf(out)).toBe("image: x (https://evil.example/ref.png)");
  });
});

describe("raw HTML", () => {
  it.each([
    ["a script", `<script>window.__xss='script'</script>`],
    ["an img with onerror", `<img src=x onerror="window.__xss='img'">`],
    ["an svg with onload", `<svg onload="window.__xss='svg'"></svg>`],
    ["an HTML block", `<div data-pwn=1>\n<iframe src="javascript:alert(1)"></iframe>\n</div>`],
    ["inline HTML in a paragraph", `hello <b onclick="x()">bold</b> <a href="javascript:alert(1)">a</a> there`],
  ])("shows %s as text", (_what, md) => {
    const out = html(md);
    // The only elements are the renderer's own, and none carries an attribute from the text.
    expect(tagsOf(out).filter((t) => t !== "div" && t !== "p")).toEqual([]);
    expect(out).not.toMatch(/<[a-z][^>]*\s(on\w+|src|href|data-pwn)=/i);
    // Shown as text, character for character (newlines between blocks aside).
    expect(decode(textOf(out)).replace(/\s+/g, " ")).toContain(md.replace(/\s+/g, " "));
  });
});

describe("formatting", () => {
  it("renders a paragraph with emphasis and inline code, exactly", () => {
    expect(html("some *em* and `x<y`")).toBe(
      '<div data-markdown="" class="break-words text-sm "><p class="my-1 whitespace-pre-wrap first:mt-0 last:mb-0">some <em>em</em> and <code class="rounded bg-stone-100 px-1 font-mono text-[0.85em] text-stone-900 dark:bg-stone-800 dark:text-stone-100 ">x&lt;y</code></p></div>',
    );
  });

  it("puts a code block in a keyboard-reachable, scrolling <pre>, verbatim", () => {
    const out = html("```bash\necho '<b>' && rm -rf /tmp/x\n```");
    expect(out).toMatch(/<pre tabindex="0" role="group" aria-label="code" class="[^"]*overflow-auto[^"]*">/);
    expect(out).toContain("echo &#x27;&lt;b&gt;&#x27; &amp;&amp; rm -rf /tmp/x\n</code></pre>");
  });

  it("wraps a table in a keyboard-reachable region that scrolls sideways", () => {
    const out = html("| a | b |\n|---|---|\n| 1 | 2 |");
    expect(out).toMatch(/^<div[^>]*><div tabindex="0" role="group" aria-label="table" class="[^"]*overflow-x-auto[^"]*"><table/);
    expect(out.match(/<td /g)).toHaveLength(2);
  });

  it("draws headings as paragraphs (outside the page's outline) and task boxes as text", () => {
    const out = html("# Plan\n\n- [ ] look\n- [x] think");
    expect(out).not.toMatch(/<h\d|<input/);
    expect(textOf(out).replace(/\s+/g, " ").trim()).toBe("Plan ☐ look ☑ think");
  });

  it("leaves a text over the limit as plain text, unparsed", () => {
    const long = `**not bold** [x](https://example.com)\n${"a".repeat(MARKDOWN_LIMIT)}`;
    const out = html(long);
    expect(out).toMatch(/^<div data-markdown="plain"/);
    expect(out).not.toMatch(/<strong|<a /);
    expect(out).toContain("**not bold** [x](https://example.com)");
  });
});

describe("the deferred component", () => {
  it("shows a new text plain first, and a text it has formatted before at once", () => {
    const text = `**fresh** ${Math.random()}`;
    const first = renderToStaticMarkup(<Markdown text={text} />);
    expect(first).toMatch(/^<div data-markdown="pending"/);
    expect(first).not.toContain("<strong>");
    html(text);
    const again = renderToStaticMarkup(<Markdown text={text} />);
    expect(again).toMatch(/^<div data-markdown=""/);
    expect(again).toContain("<strong>fresh</strong>");
  });
});

describe("the XSS corpus of the e2e tests", () => {
  it("renders to no element or attribute that could run or fetch anything", () => {
    const out = html(XSS_TEXT);
    expect(new Set(tagsOf(out))).toEqual(new Set(["div", "p", "span", "a", "pre", "code", "strong"]));
    // The only links left: https://example.com, and the tracker images as links to click, never loaded.
    expect([...out.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual(["http://xss-tracker.invalid/ref.png", "https://example.com/", "http://xss-tracker.invalid/pixel.png"]);
    // Every attribute on every element is the renderer's own (a title's value may say anything: it is quoted).
    const names = new Set([...out.matchAll(/<[a-z][a-z0-9]*((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/gi)].flatMap((m) => [...(m[1] ?? "").matchAll(/\s+([a-z-]+)(?:="[^"]*")?/gi)].map((a) => a[1])));
    expect(names).toEqual(new Set(["data-markdown", "class", "data-md-unlinked", "data-md-image", "href", "target", "rel", "title", "tabindex", "role", "aria-label"]));
  });
});
