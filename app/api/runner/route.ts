// GET: whether this server keeps minds thinking while no tab is open (200 {max_minds, lease_s, keeps_keys}, or 404 not_configured).
import { runnerInfoRoute } from "@/lib/server/runner/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = runnerInfoRoute;
