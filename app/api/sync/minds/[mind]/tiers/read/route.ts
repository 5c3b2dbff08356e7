// POST: sealed summaries by tier and block (write token).
import { tiersReadRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = tiersReadRoute;
