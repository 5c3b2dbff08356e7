// A home is a value: what a place where a mind can live gives it. The tab's
// worker (lib/home/tab.ts), the server's runner
// (lib/server/runner/server-home.ts) and a scenario's player
// (lib/home/scenario.ts) each make one, and startMind (./start.ts) does the
// rest the same way everywhere: the caps, the models, the workspace and its
// sandboxes, the mind's own texts, its skills, what comes in and the loop.
import type { Ids, Clock, ModelPort } from "../mind/ports";
import type { TrialDeps } from "../mind/run/types";
import type { MindSettings } from "../mind/settings/settings";
import type { MindState, WorkspaceStore } from "../mind/state/state";
import type { WakeWhere } from "../mind/where";
import type { SandboxNetwork } from "../shell/just-bash-sandbox";
import type { FetchFn } from "../shell/net";
import type { RuntimePort } from "../shell/ports";
import type { Permissions } from "../trajectory/permissions";

/** What the sandbox may reach from a home: the permissions in force there, and the network its commands use. */
export interface HomeNetwork {
  /** The mind's permissions as this home bounds them (the server narrows the allow-list to the host's). */
  permissions: Permissions;
  /** The fetch curl and the agent's commands use, as the permissions allow it (absent: no network at all). */
  fetch?: FetchFn;
  /** A home's own network instead (the server's guarded one): used in place of `fetch` and the allow-list. */
  sandbox?: SandboxNetwork;
  /** Real Node (a WebContainer on the tab's page), when the permissions switch it on. */
  runtime?: RuntimePort;
}

export interface Home {
  /** Everything the mind keeps, and what others bring it (its inbound side). */
  state: MindState<MindSettings>;
  /** The trajectory its steps go to (default: the mind's id; the server's is the one its tab named). */
  root?: string;
  clock: Clock;
  ids: Ids;
  /** Where it lives, written on every wake (absent: a scenario's mind, whose wakes say nothing of it). */
  where?: WakeWhere;
  /** The mind's model for these settings, priced; the summaries' model is asked for with `summary_model` as the model. */
  model(settings: MindSettings): Promise<ModelPort>;
  network(settings: MindSettings): HomeNetwork;
  /** Its workspace's files (default: the state's): a home that watches what is saved wraps them. */
  workspace?: WorkspaceStore;
  /** How this home runs; each is off unless set. */
  options?: HomeOptions;
}

export interface HomeOptions {
  /** The workspace opens once the first model call is out, not before the first wake (a tab: the sandbox is half its worker's code). */
  lazyWorkspace?: boolean;
  /** The home keeps the mind's waits (the server's wake queue): the loop ends at a wait, with a `handed-off` event. */
  keepsWaits?: boolean;
  /** The first wake waits for the sealed past to be read (a home that starts the mind for one wake at a time). */
  readBeforeFirstWake?: boolean;
  /** How long the writer gathers steps before a write (default: a short real-time wait; a simulated clock writes at once). */
  gather?: () => Promise<void>;
  /** Blocks are work the clock must count (a simulated clock skips idle time, never a block; its model counts its own calls). */
  busy?: <T>(work: Promise<T>) => Promise<T>;
  /** What a past call saw, rebuilt from its record, for `self try` (absent: this home keeps no records it can rebuild). */
  recordedCall?: TrialDeps["recorded"];
}
