// How each Markdown element is drawn: Tailwind classes for light and dark
// (stone-700+/stone-300- text, as everywhere), and the safety rules that are
// about elements rather than URLs: no <img> ever (alt text and a link
// instead), links that open apart from this page, keyboard-reachable scrolling
// for code and tables, and task-list boxes that are text, not inputs.
import type { ComponentPropsWithoutRef } from "react";
import type { Components, ExtraProps } from "react-markdown";

/** An element's props as react-markdown passes them (`node` among them, never spread onto the DOM). */
type Props<T extends keyof React.JSX.IntrinsicElements> = ComponentPropsWithoutRef<T> & ExtraProps;

const link = "text-indigo-700 underline hover:text-indigo-900 dark:text-indigo-300 dark:hover:text-indigo-200";
const heading = "mt-2 mb-1 font-semibold text-stone-900 first:mt-0 dark:text-stone-100";

// Scrolling blocks (code, tables) take the keyboard focus so they can be
// scrolled without a mouse; a named group (not a landmark: a mind's tables
// must not crowd the page's regions) says what the focus is on.

// Headings are styled paragraphs: a mind's "# Plan" must not enter the page's
// outline, where screen readers navigate by heading among the app's own.
export const ELEMENTS: Components = {
  h1: ({ children }: Props<"h1">) => <p className={`${heading} text-base`}>{children}</p>,
  h2: ({ children }: Props<"h2">) => <p className={`${heading} text-base`}>{children}</p>,
  h3: ({ children }: Props<"h3">) => <p className={`${heading} text-sm`}>{children}</p>,
  h4: ({ children }: Props<"h4">) => <p className={`${heading} text-sm`}>{children}</p>,
  h5: ({ children }: Props<"h5">) => <p className={`${heading} text-sm`}>{children}</p>,
  h6: ({ children }: Props<"h6">) => <p className={`${heading} text-sm`}>{children}</p>,
  // Soft line breaks kept: models write one thought per line as often as they write paragraphs.
  p: ({ children }: Props<"p">) => <p className="my-1 whitespace-pre-wrap first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children, className }: Props<"ul">) => <ul className={`my-1 list-disc pl-5 ${className ?? ""}`}>{children}</ul>,
  ol: ({ children, start }: Props<"ol">) => (
    <ol start={start} className="my-1 list-decimal pl-5">
      {children}
    </ol>
  ),
  li: ({ children, className }: Props<"li">) => <li className={className === "task-list-item" ? "list-none" : undefined}>{children}</li>,
  // A task list's box: a disabled, unlabelled <input> per item would be noise to assistive tech.
  input: ({ checked }: Props<"input">) => <span aria-label={checked ? "done" : "to do"} role="img">{checked ? "☑" : "☐"}</span>,
  blockquote: ({ children }: Props<"blockquote">) => (
    <blockquote className="my-1 border-l-2 border-stone-300 pl-2 text-stone-700 dark:border-stone-600 dark:text-stone-300">{children}</blockquote>
  ),
  hr: () => <hr className="my-2 border-stone-300 dark:border-stone-700" />,
  a: ({ href, title, children }: Props<"a">) =>
    href ? (
      <a href={href} title={title} target="_blank" rel="noopener noreferrer nofollow" className={link}>
        {children}
      </a>
    ) : (
      // A link to somewhere it may not go: its text, not a link.
      <span data-md-unlinked="">{children}</span>
    ),
  img: ({ src, alt }: Props<"img">) => {
    const href = typeof src === "string" ? src : "";
    return (
      <span data-md-image="" className="rounded bg-stone-100 px-1 text-stone-700 dark:bg-stone-800 dark:text-stone-300">
        image: {alt || "no description"}
        {href && (
          <>
            {" "}
            (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow" className={link}>
              {href}
            </a>
            )
          </>
        )}
      </span>
    );
  },
  pre: ({ children }: Props<"pre">) => (
    <pre
      tabIndex={0}
      role="group"
      aria-label="code"
      className="my-1 max-h-[32rem] overflow-auto rounded bg-stone-100 px-2 py-1 font-mono text-xs text-stone-900 dark:bg-stone-900 dark:text-stone-100 [&>code]:bg-transparent [&>code]:p-0"
    >
      {children}
    </pre>
  ),
  code: ({ children, className }: Props<"code">) => (
    <code className={`rounded bg-stone-100 px-1 font-mono text-[0.85em] text-stone-900 dark:bg-stone-800 dark:text-stone-100 ${className ?? ""}`}>{children}</code>
  ),
  table: ({ children }: Props<"table">) => (
    <div tabIndex={0} role="group" aria-label="table" className="my-1 max-w-full overflow-x-auto">
      <table className="border-collapse text-xs">{children}</table>
    </div>
  ),
  th: ({ children, style }: Props<"th">) => (
    <th style={style} className="border border-stone-300 px-2 py-0.5 text-left font-semibold dark:border-stone-700">
      {children}
    </th>
  ),
  td: ({ children, style }: Props<"td">) => (
    <td style={style} className="border border-stone-300 px-2 py-0.5 dark:border-stone-700">
      {children}
    </td>
  ),
};

