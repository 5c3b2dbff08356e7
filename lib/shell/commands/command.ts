// The shape of every agent command (one file each in lib/shell/commands).
// A command sees only its arguments, its shell I/O and the narrow ports it
// declares in `P`; the registry (./registry.ts) binds them. Nothing here can
// reach the trajectory except through those ports.
import type { IFileSystem } from "just-bash";

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const ok = (stdout: string): CommandResult => ({ stdout, stderr: "", exitCode: 0 });
export const fail = (stderr: string, exitCode = 1): CommandResult => ({ stdout: "", stderr: stderr.endsWith("\n") ? stderr : `${stderr}\n`, exitCode });

/** What a command gets from the shell it runs in. */
export interface CommandIO {
  /** Standard input, decoded as UTF-8 ("" when none). */
  stdin: string;
  /** The shell's working directory, absolute. */
  cwd: string;
  /** The shell's variables at the time of the call. */
  env: ReadonlyMap<string, string>;
  /** The workspace filesystem (the same one bash sees). */
  fs: IFileSystem;
  /** Aborts when the block is stopped (by its human, a limit or the watchdog). */
  signal: AbortSignal;
}

export interface AgentCommand<P = unknown> {
  name: string;
  /** One line for the command list in the prompt: `name sub <args>   what it does`. */
  summary: string;
  /** The whole usage text, printed by `<name> --help`. Ends without a newline. */
  usage: string;
  /** The tool answers `--help` itself (node, npm): the registry passes it through. */
  nativeHelp?: boolean;
  run(args: string[], io: CommandIO, ports: P): Promise<CommandResult>;
}

/** Identity, for inference of `P` at the definition site. */
export function defineAgentCommand<P>(command: AgentCommand<P>): AgentCommand<P> {
  return command;
}

/** `usage` plus a pointer, for a call the command does not understand. */
export function usageError(command: { name: string; usage: string }, problem: string): CommandResult {
  return fail(`${command.name}: ${problem}\n${command.usage}`, 2);
}

/** Resolve a path the way bash would, from the shell's cwd. */
export function resolvePath(io: Pick<CommandIO, "cwd" | "fs">, path: string): string {
  return io.fs.resolvePath(io.cwd, path);
}
