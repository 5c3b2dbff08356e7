// o200k_base token counts through gpt-tokenizer, under Node (imported as
// #count-o200k: package.json's "imports"). The command line's bundle puts
// cli/count-o200k-table.ts in this module's place (bin/cli-bundle.mjs), and
// browser bundles get count-o200k-browser.ts: the same counts from a table
// that loads in a millisecond, not a quarter second of building the
// library's Map at every start.
import { countTokens } from "gpt-tokenizer";

/**
 * Special tokens' text (`<|endoftext|>` …) is counted as the text it is: a
 * person, a command's output or a file may hold it, and by default the library
 * throws on it, which would stop the context being built.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export const countO200k = (text: string): number => countTokens(text, AS_TEXT);

/** Nothing to load here: the library is loaded with this module. (The browser's counter fetches its table.) */
export const loadO200k = (_fetchTable: (path: string) => Promise<Response>): Promise<void> => Promise.resolve();
