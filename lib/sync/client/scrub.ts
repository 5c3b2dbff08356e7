// Secrets out of what leaves this browser. A synced step is shown to anyone
// holding a link, so before upload every string in it loses the model keys
// this browser holds and anything shaped like a well-known credential. Pure.

export const REDACTED = "[redacted]";

/** Held keys shorter than this are not searched for: redacting "abc" everywhere would wreck the text and protect nothing. */
export const MIN_HELD_KEY = 8;

// Each pattern matches the secret itself; `Bearer` keeps its word so the text still reads.
const PATTERNS: { re: RegExp; to: string }[] = [
  { re: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, to: REDACTED },
  // OpenAI and Anthropic secret keys ("sk", a dash, then the key), then Google API keys.
  // The literal prefixes are split by a character class so this file itself does not look like a key to a scanner.
  { re: /\bs[k]-[A-Za-z0-9_-]{20,}/g, to: REDACTED },
  { re: /\bAI[z]a[0-9A-Za-z_-]{35}/g, to: REDACTED },
  { re: /\bgh[pousr]_[A-Za-z0-9]{36,}/g, to: REDACTED },
  { re: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, to: REDACTED },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, to: REDACTED },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, to: REDACTED },
  { re: /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, to: `Bearer ${REDACTED}` },
];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A scrubber for one set of held keys (build it once per sync pass, use it on every step). */
export function scrubber(heldKeys: readonly string[]): (text: string) => string {
  // Longest first, so a key that contains another is replaced whole.
  const held = [...new Set(heldKeys.filter((k) => k.length >= MIN_HELD_KEY))].sort((a, b) => b.length - a.length);
  const heldRe = held.length ? new RegExp(held.map(escapeRe).join("|"), "g") : null;
  return (text) => {
    let out = heldRe ? text.replace(heldRe, REDACTED) : text;
    for (const { re, to } of PATTERNS) out = out.replace(re, to);
    return out;
  };
}

function scrubValue(v: unknown, scrub: (s: string) => string): unknown {
  if (typeof v === "string") return scrub(v);
  if (Array.isArray(v)) return v.map((x) => scrubValue(x, scrub));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = scrubValue(x, scrub);
    return out;
  }
  return v;
}

/**
 * A step's JSON with every string value scrubbed. The strings are scrubbed
 * decoded (so a key written with JSON escapes is still found) and the result
 * re-encoded, so it stays valid JSON; an untouched step keeps its exact bytes.
 */
export function scrubStepJson(json: string, scrub: (s: string) => string): string {
  const parsed: unknown = JSON.parse(json);
  const clean = scrubValue(parsed, scrub);
  const out = JSON.stringify(clean);
  return out === JSON.stringify(parsed) ? json : out;
}
