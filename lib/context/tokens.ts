// Token counting with a real tokenizer: gpt-tokenizer's o200k_base, the
// vocabulary of OpenAI's current models. For other vocabularies (Anthropic,
// Gemini, Llama) it is an approximation, typically within about 10-15%;
// budgets keep a margin for that. Counts are cached by key (a step id, a
// summary's block), so one more step costs one count, not a recount.
import { countO200k } from "#count-o200k";

/** Resolves once counting works: a browser fetches its table first (count-o200k-browser.ts); elsewhere at once. */
export { loadO200k } from "#count-o200k";

export { MESSAGE_OVERHEAD } from "./message-overhead";

export class TokenCounter {
  private readonly cache = new Map<string, number>();

  constructor(private readonly max = 200_000) {}

  count(text: string): number {
    return text ? countO200k(text) : 0;
  }

  /** The count of `text`, remembered under `key` (the text of a key must not change). */
  cached(key: string, text: string): number {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const n = this.count(text);
    if (this.cache.size >= this.max) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, n);
    return n;
  }
}
