// Types of cli/help.mjs (plain JavaScript, so that bin/reverie.mjs loads it as it is).
export interface Verb {
  summary: string;
  usage: string;
  text: string;
  values: readonly string[];
  options?: readonly string[];
}
export type VerbName = "check" | "show" | "context" | "sh" | "eval" | "runner" | "minds";
export declare const VERBS: Readonly<Record<VerbName, Verb>>;
export declare const USAGE: string;
export declare function verbUsage(verb: VerbName): string;
export declare function isVerb(word: string): word is VerbName;
export type HelpAnswer = { out: string; code: number } | { err: string; code: number };
export declare function helpAnswer(argv: readonly string[]): HelpAnswer | undefined;
