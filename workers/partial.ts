// The reply as it streams in, for the page's live partial reply. Each chunk
// only keeps its text (no post, no timer of its own); the newest text goes to
// the page on a timer, at most once every `reportMs` (the page's pace), and
// only once a reply has streamed for PARTIAL_FIRST_MS. A reply done sooner is
// a step on the page a moment later: posting its text first and then its
// clearing "" was two renders of the page for text no one could read, and a
// mind calling a fast model a hundred times a second did that four times a
// second, on the cores its loop needs.

/** A reply that is over within this long is never shown as partial text. */
export const PARTIAL_FIRST_MS = 100;

/**
 * A run's onPartial for the page: give it the text so far as it streams, and
 * "" when the call is over (which clears the page's partial, if it shows one).
 * One timer serves call after call: a mind on a fast model makes a hundred
 * calls a second, and arming and clearing a timer for each cost its thread
 * more than the calls' text; when the timer finds a reply younger than
 * PARTIAL_FIRST_MS (or none), it waits on for that one (or stops).
 */
export function partialReporter(post: (text: string) => void, reportMs: number): (text: string) => void {
  let text = "";
  let startedAt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let shown = false;
  let postedAt = -Infinity;
  const arm = (now: number) => {
    timer = setTimeout(flush, Math.max(startedAt + PARTIAL_FIRST_MS - now, postedAt + reportMs - now, 0));
  };
  const flush = () => {
    timer = null;
    if (!text) return;
    const now = Date.now();
    if (now - startedAt < PARTIAL_FIRST_MS) return arm(now);
    postedAt = now;
    shown = true;
    post(text);
  };
  return (next) => {
    if (next === "") {
      text = "";
      if (shown) {
        shown = false;
        post("");
      }
      return;
    }
    if (!text) startedAt = Date.now();
    text = next;
    if (!timer) arm(Date.now());
  };
}
