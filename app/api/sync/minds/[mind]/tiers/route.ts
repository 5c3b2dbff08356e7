// POST: seal summaries once each (write token, lease epoch).
import { tiersRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = tiersRoute;
