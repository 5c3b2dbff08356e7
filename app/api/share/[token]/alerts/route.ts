// POST: an alert (a CI failure, a monitor, a bot) through an alert link.
import { sharedAlertsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedAlertsRoute;
