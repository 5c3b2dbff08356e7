// GET: what the server holds of the mind beyond its steps: settings, shell, pacing, workspace entries, sealed summaries (write token).
import { stateRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = stateRoute;
