import "server-only";
// The sharing routes as the running server sees them: the process-wide
// database and one live hub for it (so every viewer of a mind in this
// process shares one follower). A database that cannot be opened is 503.
import { openLiveHub, type LiveHub } from "./live";
import { sharingRoutes, type SharingDeps } from "./routes";
import { serverSql, type Sql } from "../db/sql";
import { allMethods, apiError, HttpError } from "../http/route";
import { parseQuotas, type QuotasResult } from "./quotas";
import { runnerConfig, runnerHooks } from "../runner/runtime";

const hubs = new WeakMap<Sql, LiveHub>();
/** The environment is read once per process, as the proxy's is; `npm start` refuses bad values before serving. */
let quotas: QuotasResult | undefined;

async function runtimeDeps(): Promise<SharingDeps> {
  quotas ??= parseQuotas(process.env);
  if (!quotas.ok) throw new HttpError(503, "invalid_config", `the sync API's limits are misconfigured: ${quotas.problems.join("; ")}`);
  let sql: Sql;
  try {
    sql = await serverSql();
  } catch (e) {
    console.error(`sharing API: the database is unavailable: ${(e as Error).message}`);
    throw new HttpError(503, "unavailable", "the sharing database is unavailable (it could not be opened); nothing was changed; try again shortly", {}, { "Retry-After": "5" });
  }
  let live = hubs.get(sql);
  if (!live) hubs.set(sql, (live = openLiveHub(sql)));
  return { sql, live, quotas: quotas.quotas, ...(runnerConfig().kind === "ok" ? { runner: runnerHooks } : {}) };
}

const routes = sharingRoutes(runtimeDeps);

// Each app/api route file re-exports one of these: every method goes through the same dispatcher, which answers 405 for those the route lacks.
export const mindsRoute = allMethods(routes.minds);
export const mindRoute = allMethods(routes.mind);
export const stepsRoute = allMethods(routes.steps);
export const blobsRoute = allMethods(routes.blobs);
export const linksRoute = allMethods(routes.links);
export const linkRoute = allMethods(routes.link);
export const inboxRoute = allMethods(routes.inbox);
export const ownerRoute = allMethods(routes.owner);
export const leaseRoute = allMethods(routes.lease);
export const stateRoute = allMethods(routes.state);
export const filesRoute = allMethods(routes.files);
export const filesReadRoute = allMethods(routes.filesRead);
export const tiersRoute = allMethods(routes.tiers);
export const tiersReadRoute = allMethods(routes.tiersRead);
export const recordRoute = allMethods(routes.record);
export const sharedRoute = allMethods(routes.shared);
export const sharedStepsRoute = allMethods(routes.sharedSteps);
export const sharedLocateRoute = allMethods(routes.sharedLocate);
export const sharedSearchRoute = allMethods(routes.sharedSearch);
export const sharedBlobsRoute = allMethods(routes.sharedBlobs);
export const sharedEventsRoute = allMethods(routes.sharedEvents);
export const sharedMessagesRoute = allMethods(routes.sharedMessages);
export const sharedControlRoute = allMethods(routes.sharedControl);
export const sharedMemoryRoute = allMethods(routes.sharedMemory);
export const sharedAlertsRoute = allMethods(routes.sharedAlerts);
export const sharedUsageRoute = allMethods(routes.sharedUsage);

/** Any path under /api/sync or /api/share that no route file matches. */
export const unknownSharingPath = () => apiError(404, "not_found", "no such sharing endpoint");
