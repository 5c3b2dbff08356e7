// The shape every agent command returns.
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const ok = (stdout: string): CommandResult => ({ stdout, stderr: "", exitCode: 0 });
export const fail = (stderr: string, exitCode = 1): CommandResult => ({ stdout: "", stderr: stderr.endsWith("\n") ? stderr : `${stderr}\n`, exitCode });
