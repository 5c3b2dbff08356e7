// GET: guests' messages not yet delivered as steps (write token).
import { inboxRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = inboxRoute;
