// Tokens are compared in constant time: every check, right or wrong, hashes
// what was sent and runs timingSafeEqual over two 32-byte digests, so where a
// wrong token differs (first character, last, or its length) changes nothing
// about the work done. Shown by counting the calls and their lengths through
// the real routes, and by the stored rows holding only digests.
import { createHash } from "node:crypto";
import type * as Crypto from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sql } from "@/lib/server/db/sql";

const compared = vi.hoisted(() => ({ lengths: [] as [number, number][] }));
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    compared.lengths.push([a.byteLength, b.byteLength]);
    return real.timingSafeEqual(a, b);
  };
  return { ...real, timingSafeEqual, default: { ...real, timingSafeEqual } };
});

const { hashToken, newToken, tokenMatches } = await import("@/lib/server/sharing/tokens");
const { pglite } = await import("../databases");
const { dump, instance, newLink, newMind, thought, upload } = await import("../sync/harness");

/** The same token with one character changed at `at`. */
const flip = (t: string, at: number) => t.slice(0, at) + (t[at] === "A" ? "B" : "A") + t.slice(at + 1);

describe("token comparison", () => {
  beforeEach(() => {
    compared.lengths = [];
  });

  it("makes 256-bit base64url tokens and keeps only their SHA-256", () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, "base64url")).toHaveLength(32);
    expect(newToken()).not.toBe(a);
    expect(hashToken(a)).toEqual(createHash("sha256").update(a).digest());
  });

  it("refuses a token wrong in its first or its last character, or of another length, through the same equal-length comparison", () => {
    const token = newToken();
    const stored = hashToken(token);
    const wrong = [flip(token, 0), flip(token, 42), token.slice(0, 42), `${token}x`, "", "ü".repeat(100)];
    for (const w of wrong) expect(tokenMatches(w, stored)).toBe(false);
    expect(tokenMatches(token, stored)).toBe(true);
    // An unknown owner (no stored digest) is still one comparison, refused.
    expect(tokenMatches(token, undefined)).toBe(false);
    expect(tokenMatches(undefined, stored)).toBe(false);
    expect(compared.lengths).toEqual(Array(wrong.length + 3).fill([32, 32]));
  });
});

describe("tokens through the routes (PGlite)", { timeout: 120_000 }, () => {
  let sql: Sql;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    const db = await pglite.fresh();
    remove = db.remove;
    sql = await db.open();
  }, 120_000);
  afterAll(async () => {
    await sql?.close();
    await remove?.();
  });

  it("checks write tokens and link tokens by digest, one constant-time comparison per request, hit or miss", async () => {
    const app = instance(sql);
    try {
      const m = await newMind(app);
      await upload(app, m, 0, [thought(1)]);
      const link = await newLink(app, m, "live");
      compared.lengths = [];
      const statuses: number[] = [];
      for (const t of [m.token, flip(m.token, 0), flip(m.token, 42)]) statuses.push((await app.call("GET", `/api/sync/minds/${m.mind}`, { token: t })).status);
      for (const t of [link.token, flip(link.token, 0), flip(link.token, 42)]) statuses.push((await app.call("GET", `/api/share/${t}`)).status);
      expect(statuses).toEqual([200, 401, 401, 200, 404, 404]);
      expect(compared.lengths).toEqual(Array(6).fill([32, 32]));
      // Only digests are stored: neither token appears in any row, their SHA-256 does.
      const rows = await dump(sql);
      const text = JSON.stringify(rows, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v));
      for (const t of [m.token, link.token]) {
        expect(text).not.toContain(t);
        expect(text).toContain(hashToken(t).toString("hex"));
      }
    } finally {
      await app.close();
    }
  });
});
