import "server-only";
// A mind's own model key, kept on the server only when its human opted in to
// keep-alive with it: AES-256-GCM under a key derived from RUNNER_KEY_SECRET,
// which lives in the environment and never in the database. A leaked
// database without the environment gives nothing; the mind's id is bound in
// as associated data, so a ciphertext moved to another mind does not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (secret: string) => createHash("sha256").update(`reverie runner key v${VERSION}\0${secret}`).digest();

/** version (1 byte) · iv (12) · tag (16) · ciphertext. */
export function sealKey(secret: string, mindId: string, apiKey: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secret), iv);
  cipher.setAAD(Buffer.from(mindId, "utf8"));
  const body = Buffer.concat([cipher.update(apiKey, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** The key, or an error that names no part of it (wrong secret, another mind's, damaged). */
export function openKey(secret: string, mindId: string, sealed: Uint8Array): string {
  const buf = Buffer.from(sealed);
  if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== VERSION) throw new Error("the kept key is damaged or of an unknown version");
  const iv = buf.subarray(1, 1 + IV_BYTES);
  const tag = buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(secret), iv);
    decipher.setAAD(Buffer.from(mindId, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("the kept key does not open with this server's RUNNER_KEY_SECRET (was it changed?); turn keep-alive off and on again in a tab");
  }
}
