// Step ids from a seed (`reverie eval --seed N`): UUID v4-shaped, so the
// trajectory stays in Headlong's format, and the same for the same seed, so
// two runs of a scenario can be compared step for step (their evidence ids
// included). A small, well-known generator is enough: the ids need to be
// distinct and repeatable, not unguessable.
import type { Ids } from "../mind/ports";

/** mulberry32: 32 bits of state, a full period, good enough spread for ids; each call 32 bits as an unsigned integer. */
export function mulberry32u(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

export function seededIds(seed: number): Ids {
  const next = mulberry32u(seed);
  return {
    uuid() {
      const h = hex8(next()) + hex8(next()) + hex8(next()) + hex8(next());
      // Version 4 and the RFC 4122 variant, as crypto.randomUUID() gives.
      const variant = ((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}
