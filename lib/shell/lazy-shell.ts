// A shell whose sandbox is made when it is first wanted. The browser's
// sandbox (just-bash over the workspace, about half of the worker's code) is
// not loaded before the mind can wake: a worker loads its chunks on its one
// thread, so the tab that takes its mind back would wait for them before its
// wake. The host warms it once the first model call is out (its load runs
// while the model thinks), and a block that comes first waits for it. A
// sandbox that cannot be loaded fails that block, not the mind.
import type { ShellPort, ShellSession } from "../mind/ports";

export interface LazyShell extends ShellPort {
  /** Make the sandbox now, once; a failed attempt is tried again by the next call. */
  warm(): Promise<ShellPort>;
  /** Whether the sandbox has been made. */
  made(): boolean;
}

export function lazyShell(make: () => Promise<ShellPort>): LazyShell {
  let making: Promise<ShellPort> | null = null;
  let made = false;
  const warm = () =>
    (making ??= make().then(
      (shell) => {
        made = true;
        return shell;
      },
      (e: unknown) => {
        making = null;
        throw e;
      },
    ));
  return {
    warm,
    made: () => made,
    open(scope): ShellSession {
      // One real session per run, as with the sandbox itself: opened by the run's first block.
      let session: Promise<ShellSession> | null = null;
      return {
        exec(code, req) {
          const opened = (session ??= warm().then((shell) => shell.open(scope)));
          return opened.then(
            (s) => s.exec(code, req),
            (e: unknown) => {
              // Not loaded (the app's server went away mid-load): the block fails as a command would, and the next one tries again.
              if (session === opened) session = null;
              return { stdout: "", stderr: `[reverie] the shell could not be loaded: ${e instanceof Error ? e.message : String(e)}\n`, exit: 126, env: req.env, cwd: req.cwd, timedOut: false, execS: 0 };
            },
          );
        },
      };
    },
  };
}
