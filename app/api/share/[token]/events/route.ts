// GET: server-sent events of a live or invite link's new steps.
import { sharedEventsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedEventsRoute;
