// The browser's token counter (lib/context/count-o200k-browser.ts, what the
// mind's worker counts with) fetches its table from the app's route
// (app/o200k_base.bpe, lib/server/assets/token-table.ts) and then counts as
// gpt-tokenizer does. A table that cannot be fetched is a clear error that a
// later load gets past; counting before the load says so.
import { describe, expect, it, vi } from "vitest";
import { countO200k as libraryCount } from "@/lib/context/count-o200k";
import { tokenTableResponse } from "@/lib/server/assets/token-table";

const TEXTS = [
  "The quick brown fox jumps over the lazy dog. It's, they're, we'll.",
  "日本語のテキストと漢字、カタカナ。中文也一样：你好，世界！",
  "```bash\nfor k in 1 2 3; do sleep 0.3; echo \"x $k\" >> log.txt; done\n```",
  "<|endoftext|> emoji 👩‍👩‍👧‍👦 🇩🇪 \ufeff a\ufeffb",
];

/** A fresh copy of the module (its table is per module instance). */
const fresh = async () => {
  vi.resetModules();
  return import("@/lib/context/count-o200k-browser");
};

describe("the browser's token counter", () => {
  it("counts from the table the app serves, as the library does", async () => {
    const browser = await fresh();
    const asked: string[] = [];
    await browser.loadO200k(async (path) => {
      asked.push(path);
      return tokenTableResponse();
    });
    expect(asked).toEqual(["/o200k_base.bpe"]);
    for (const t of TEXTS) expect(browser.countO200k(t)).toBe(libraryCount(t));
    expect(browser.countO200k(TEXTS[0] as string)).toBeLessThan((TEXTS[0] as string).length / 2);
    // Loaded once: a second load does not fetch again.
    await browser.loadO200k(async () => {
      throw new Error("fetched twice");
    });
  }, 60_000);

  it("says it is not loaded, then that the table could not be fetched, and loads on a later try", async () => {
    const browser = await fresh();
    expect(() => browser.countO200k("hi")).toThrow("The token counter's table is not loaded yet: await loadO200k() before counting.");
    await expect(browser.loadO200k(async () => new Response("gone", { status: 503 }))).rejects.toThrow("Could not load the token counter's table (/o200k_base.bpe): HTTP 503");
    await expect(browser.loadO200k(async () => new Response("not a table at all; ".repeat(10)))).rejects.toThrow("Could not load the token counter's table (/o200k_base.bpe): not a token table of this version");
    await expect(browser.loadO200k(async () => Promise.reject(new TypeError("Failed to fetch")))).rejects.toThrow("Failed to fetch");
    expect(() => browser.countO200k("hi")).toThrow("not loaded yet");
    await browser.loadO200k(async () => tokenTableResponse());
    expect(browser.countO200k("hello world")).toBe(2);
  }, 60_000);

  it("is served with a day's cache, as bytes", async () => {
    const res = tokenTableResponse();
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  }, 60_000);
});
