// GET: what the mind spent, against its caps, for an operator's invite.
import { sharedUsageRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedUsageRoute;
