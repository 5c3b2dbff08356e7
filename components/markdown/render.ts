// Markdown text to React elements, through react-markdown + remark-gfm with
// raw HTML left as text (no rehype-raw) and every URL through safeHref.
// Parsing costs a few milliseconds per kilobyte, and the viewer mounts and
// unmounts rows as the reader scrolls, so the elements of recent texts are
// kept: elements are immutable values, safe to mount again anywhere.
import type { ReactElement } from "react";
import renderWithReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { ELEMENTS } from "./elements";
import { safeHref } from "./safe-url";

const PLUGINS = [remarkGfm];

/** How many texts keep their elements (a screenful of rows many times over). */
const KEPT = 400;
const kept = new Map<string, ReactElement>();

/** The elements of a text already rendered, if they are still kept. */
export function keptMarkdown(text: string): ReactElement | undefined {
  const hit = kept.get(text);
  if (hit) {
    // Most recently used last, so the oldest is the first to go.
    kept.delete(text);
    kept.set(text, hit);
  }
  return hit;
}

export function renderMarkdown(text: string): ReactElement {
  const hit = keptMarkdown(text);
  if (hit) return hit;
  // react-markdown's synchronous entry is a plain function without hooks: called here, its result can be kept.
  const out = renderWithReactMarkdown({ children: text, remarkPlugins: PLUGINS, urlTransform: safeHref, components: ELEMENTS, skipHtml: false });
  kept.set(text, out);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  return out;
}
