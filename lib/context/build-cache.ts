// What buildContext keeps from one call to the next, in an object its caller
// holds: the mind's inner life keeps one for its whole life (a run's calls
// are a step or two apart and show mostly the same pieces), a one-shot caller
// (`reverie context`) lets buildContext make one per call. Nothing in it
// changes a context: every entry is checked against what it was made of
// before it is used again, so a fresh cache gives the same context, slower.
import type { Step } from "../trajectory/schema";
import type { Summary } from "./parts";
import { stretches, type Made, type Piece, type Shown, type Stretch } from "./pieces";
import { renderStep } from "./project";
import type { PlanPart } from "./staircase";
import type { ContextSource } from "./stream";
import type { TokenCounter } from "./tokens";

type Key = Summary | string;

export class BuildCache {
  /**
   * Pieces of summaries and elisions kept from one call to the next: between
   * two calls of a run only a step or two is appended, and the staircase is
   * mostly the same blocks, whose notes, token counts and parts were made again
   * for every call. Two generations, by a summary or an elision's key: the
   * pieces this call has used, and the last call's (what neither used is let
   * go). A piece is used again only when it was made of the same things: the
   * same summary object, block, counter and ends in the stream.
   */
  private now = new Map<Key, Piece[]>();
  private before = new Map<Key, Piece[]>();

  /**
   * Steps as shown, across calls: a run's steps are the same objects from one
   * call to the next (the mind keeps them in memory), and rendering and looking
   * up the tokens of 200 of them for every call was a tenth of its time. Valid
   * for the name and the counter they were shown with.
   */
  private readonly shownBefore = new WeakMap<Step, Shown & { selfName: string; counter: TokenCounter }>();

  /** By a planner's staircase: its stretches. With a summarizer behind, a staircase is hundreds of elided blocks that read as one. */
  private readonly stretchesOf = new WeakMap<readonly PlanPart[], Stretch[]>();

  /** A call begins: the pieces the last one used may be used again, older ones are let go. */
  nextGeneration(): void {
    this.before = this.now;
    this.now = new Map();
  }

  /** The piece, kept as used by this call. */
  keep(key: Key, piece: Piece): Piece {
    const list = this.now.get(key);
    if (list) list.push(piece);
    else this.now.set(key, [piece]);
    return piece;
  }

  /** A piece this call or the last one made of what `match` accepts, its ids read from now on from `src`. */
  keptPiece(key: Key, src: ContextSource, match: (m: Made) => boolean): Piece | undefined {
    const fits = (p: Piece) => p.made !== undefined && match(p.made);
    const now = this.now.get(key)?.find(fits);
    const piece = now ?? this.before.get(key)?.find(fits);
    if (!piece?.made) return undefined;
    piece.made.src = src;
    return now ? piece : this.keep(key, piece);
  }

  /** A step as the context shows it, by `selfName` and counted by `counter`. */
  shown(step: Step, selfName: string, counter: TokenCounter): Shown {
    const before = this.shownBefore.get(step);
    if (before && before.selfName === selfName && before.counter === counter) return before;
    const message = renderStep(step, selfName);
    const shown = { message, tokens: message ? counter.cached(step.step_id, message.content) : 0, selfName, counter };
    this.shownBefore.set(step, shown);
    return shown;
  }

  /** A planner's staircase as stretches, worked out once per staircase (a planner gives the same array for a cut until an answer changes). */
  stretches(staircase: readonly PlanPart[]): Stretch[] {
    let out = this.stretchesOf.get(staircase);
    if (!out) this.stretchesOf.set(staircase, (out = stretches(staircase)));
    return out;
  }
}
