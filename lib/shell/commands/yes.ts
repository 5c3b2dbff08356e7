// yes: just-bash has none. Its pipes pass whole outputs rather than streams, so
// an endless yes would never let `yes | head -3` finish: the output is capped.
import { defineAgentCommand, ok } from "./command";

/** Bytes of output after which yes stops (whole lines only). */
export const YES_MAX_BYTES = 64 * 1024;
export const YES_CUT_NOTE = `[reverie] yes stopped after ${YES_MAX_BYTES / 1024} KiB (this shell's pipes pass whole outputs, not streams)\n`;

const USAGE = `usage: yes [STRING…]
Print STRING (default 'y'; several are joined by spaces) and a newline, over and over.
Output stops at ${YES_MAX_BYTES / 1024} KiB (this shell's pipes are not streams), which is plenty for 'yes | head -3'.`;

export const yes = defineAgentCommand({
  name: "yes",
  summary: `yes [STRING]   repeat a line (output capped at ${YES_MAX_BYTES / 1024} KiB)`,
  usage: USAGE,
  async run(args) {
    if (args.length === 1 && args[0] === "--help") return ok(`${USAGE}\n`);
    const line = `${args.length ? args.join(" ") : "y"}\n`;
    const bytes = new TextEncoder().encode(line).length;
    // At least one line, even when a single line is longer than the cap. The cut is a limit like any other, so it
    // says so (on stderr, where `yes | head -3` leaves its output alone).
    return { ...ok(line.repeat(Math.max(1, Math.floor(YES_MAX_BYTES / bytes)))), stderr: YES_CUT_NOTE };
  },
});
