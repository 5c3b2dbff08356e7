// A small seeded generator (mulberry32, the one seeded step ids use), so a failing randomized test names its seed and replays.
import { mulberry32u } from "@/lib/eval/seeded-ids";

/** Numbers in [0, 1) from the seed. */
export function mulberry32(seed: number): () => number {
  const next = mulberry32u(seed);
  return () => next() / 4294967296;
}
