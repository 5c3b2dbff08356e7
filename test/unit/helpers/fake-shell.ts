// FAKE — a ShellPort with scripted results (the just-bash sandbox has its own
// tests). Each exec is recorded with copies of the env and cwd it was given;
// each session's scope is kept, so a test can call the agent's ports as the
// commands would.
import type { ShellPort, ShellRequest, ShellResult, ShellScope, ShellSession } from "../../../lib/mind/ports";

export interface ShellCall {
  code: string;
  env: Record<string, string>;
  cwd: string;
}

export type ShellScript = (code: string, req: ShellRequest, call: number, scope: ShellScope) => Partial<ShellResult> | Promise<Partial<ShellResult>>;

export class FakeShell implements ShellPort {
  readonly calls: ShellCall[] = [];
  /** The scope of every session opened, in order. */
  readonly scopes: ShellScope[] = [];

  constructor(private script: ShellScript = () => ({})) {}

  setScript(script: ShellScript): void {
    this.script = script;
  }

  open(scope: ShellScope): ShellSession {
    this.scopes.push(scope);
    return { exec: (code, req) => this.exec(code, req, scope) };
  }

  private async exec(code: string, req: ShellRequest, scope: ShellScope): Promise<ShellResult> {
    const call = this.calls.length;
    this.calls.push({ code, env: { ...req.env }, cwd: req.cwd });
    const r = await this.script(code, req, call, scope);
    return { stdout: "", stderr: "", exit: 0, env: { ...req.env }, cwd: req.cwd, timedOut: false, execS: 0.01, ...r };
  }
}

/** A result that sets FINAL (the way a block ending in `FINAL=value` does). */
export function finalResult(req: ShellRequest, value: string, extra: Partial<ShellResult> = {}): Partial<ShellResult> {
  return { ...extra, env: { ...req.env, ...(extra.env ?? {}), FINAL: value } };
}
