// The inbound side of a mind's state: the one door through which whatever
// others bring a mind enters it, wherever it lives. People's messages,
// operators' controls, alerts, its owner's settings (a config step), and
// changes to its memory, goals and own texts; the channels to come go through
// it too. Each home's store feeds it its own way: the tab from its door (the
// steps and changes its pages hand the running mind) and IndexedDB's change
// feed, the server from its inbox tables, a scenario from its script. The
// running mind opens it once and is given each thing once, in order; nothing
// reaches a mind around it.
//
// A step that arrives while the mind runs is written by the mind's one writer,
// stamped when it takes it, so its trajectory reads in time order (a step
// stamped by someone else and stored beside the writer could land after a
// step stamped later).
import type { Step } from "../../trajectory/schema";

/**
 * A change someone asked of the mind, made where its files are (its
 * workspace) by the running mind, and recorded by the step that says what was
 * made. Its id becomes that step's, so a change is made once.
 */
export interface InboundChange {
  id: string;
  /** "curation": a person's change to its memories or goals; "self": its owner's change to its own texts. */
  kind: "curation" | "self";
  /** The change as asked, parsed where it is made (an unreadable one is recorded as refused). */
  body: unknown;
}

export interface InboundSink {
  /** Steps stored for the mind by others already (while nothing else wrote it, or from its other home), oldest first, each with the trajectory it went to. */
  steps(steps: readonly { trajId: string; step: Step }[]): void;
  /**
   * Steps that come in for the mind to write, oldest first, to its own
   * trajectory: each keeps its id (so it is written once) and is stamped when
   * the mind's writer takes it. Resolves once they are stored.
   */
  arrive(steps: readonly Step[]): Promise<void>;
  /** Make a change and append the step that records it; resolves once that step is stored. */
  change(c: InboundChange): Promise<Step>;
}

export interface Inbound {
  /** Stop taking what comes in: what is being made is finished first. */
  close(): Promise<void>;
}

export interface InboundPort {
  /** Start giving the mind what comes in from now on, each once; resolves once nothing that comes after can be missed. One sink at a time. */
  open(sink: InboundSink): Promise<Inbound>;
}
