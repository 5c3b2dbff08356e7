// POST: an operator's pause, resume or stop through an invite link.
import { sharedControlRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedControlRoute;
