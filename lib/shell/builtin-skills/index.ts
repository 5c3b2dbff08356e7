// Skills Reverie ships, which the mind may install (`skills install
// builtin:NAME`): Markdown files here, imported as text like the mind's
// default texts (lib/mind/self/defaults).
import recallWatcher from "./recall-watcher.md" with { type: "text" };

/** By name: the skill's whole file, front matter and all. */
export const BUILTIN_SKILLS: Readonly<Record<string, string>> = {
  "recall-watcher": recallWatcher,
};

/** How a source names a shipped skill: `builtin:recall-watcher`. */
export const BUILTIN_PREFIX = "builtin:";
