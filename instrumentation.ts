// Next calls register() once when the server starts. `npm start` hosts the
// server runner in the same process by default (one process, PGlite or
// PostgreSQL): minds with keep-alive go on thinking while no tab is open.
// RUNNER_EMBEDDED=0 leaves it to separate `npx reverie runner` processes on
// the same PostgreSQL; RUNNER_MAX_MINDS=0 turns the runner off everywhere.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.RUNNER_EMBEDDED === "0") return;
  const { startRunner } = await import("./lib/server/runner/runtime");
  void startRunner()?.catch(() => undefined);
}
