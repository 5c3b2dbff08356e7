"use client";
// A mind's prose (thoughts, replies, messages) as Markdown. Everything a mind
// wrote is untrusted and may be shown to strangers on a share link, so raw
// HTML is shown as text, links go only to absolute http(s)/mailto URLs and
// open in a new tab without referrer or opener, images are never loaded
// (their alt text and a link instead: a viewer's browser must not fetch an
// attacker's URL), and scrollable blocks are keyboard-reachable (see
// ./elements, ./safe-url). Commands, outputs and JSON are not Markdown: they
// stay verbatim in <pre> where they are shown.
import { memo, useDeferredValue } from "react";
import { keptMarkdown, renderMarkdown } from "./render";

/**
 * Longer texts are shown as plain text: parsing is linear, but a few tens of
 * kilobytes in one step would hold up the page each time its row mounts.
 */
export const MARKDOWN_LIMIT = 20_000;

const box = (className?: string) => `break-words text-sm ${className ?? ""}`;

/** The text as it was before formatting: what shows first, and for very long texts. */
function Plain({ text, className, testId, state }: { text: string; className?: string; testId?: string; state: "plain" | "pending" }) {
  return (
    <div data-testid={testId} data-markdown={state} className={box(className)}>
      <p className="whitespace-pre-wrap">{text}</p>
    </div>
  );
}

/** `text` as Markdown, at once (what the deferred component below shows once it has the time). */
export function MarkdownNow({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  if (text.length > MARKDOWN_LIMIT) return <Plain text={text} className={className} testId={testId} state="plain" />;
  return (
    <div data-testid={testId} data-markdown="" className={box(className)}>
      {renderMarkdown(text)}
    </div>
  );
}

/**
 * `text` as Markdown. A text seen before is formatted at once; a new one shows
 * as plain text first and is formatted in a deferred render, which React can
 * interrupt: mounting a screenful of rows never blocks scrolling or typing.
 * Memoized on its props: a row re-rendering for its selection does no work here.
 */
export const Markdown = memo(function Markdown({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const known = text.length <= MARKDOWN_LIMIT && keptMarkdown(text) !== undefined;
  const ready = useDeferredValue(true, known);
  if (!ready) return <Plain text={text} className={className} testId={testId} state="pending" />;
  return <MarkdownNow text={text} className={className} testId={testId} />;
});
