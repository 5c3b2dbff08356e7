// The one list of the agent's commands. The sandbox registers them with
// just-bash (./bind); the prompt's command list is generated from their
// summaries. Nothing here loads just-bash: the prompt needs the list before
// the browser's sandbox is loaded (lib/shell/lazy-shell.ts).
import type { TrialPort } from "../../mind/ports";
import type { ActivityPort, AlarmPort, ChatPort, ClockPort, IdsPort, NetPort, RuntimePort, ShellmPort, TrajPort, WatcherPort } from "../ports";
import { alarm } from "./alarm";
import { chat } from "./chat";
import type { AgentCommand } from "./command";
import { focus } from "./focus";
import { glob } from "./glob";
import { mem } from "./mem";
import { mktemp } from "./mktemp";
import { node, npm, npx } from "./node";
import { put } from "./put";
import { self } from "./self";
import { shellm } from "./shellm";
import { skills } from "./skills";
import { sub } from "./sub";
import { traj } from "./traj";
import { view } from "./view";
import { watch } from "./watch";
import { yes } from "./yes";

/** Everything any command may be given; each command takes only the part it declares. */
export interface SandboxPorts {
  traj: TrajPort;
  chat: ChatPort;
  shellm: ShellmPort;
  alarms: AlarmPort;
  /** Trying and merging trials of the mind's texts (`self`), when its home can. */
  trials?: TrialPort;
  /** How the mind's watchers have run (`watch`). */
  watchers: WatcherPort;
  activity: ActivityPort;
  clock: ClockPort;
  ids: IdsPort;
  net: NetPort;
  runtime: RuntimePort;
}

// Listed by hand (literal imports, so bundlers follow them); order is the prompt's order.
export const COMMANDS: readonly AgentCommand<SandboxPorts>[] = [chat, traj, mem, focus, alarm, watch, skills, self, view, put, glob, sub, shellm, mktemp, yes, node, npm, npx];

/** The command list for the prompt, one `summary` a line. */
export function commandList(commands: readonly AgentCommand<SandboxPorts>[] = COMMANDS): string {
  return commands.map((c) => `- ${c.summary}`).join("\n");
}
