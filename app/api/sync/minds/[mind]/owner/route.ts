// POST: the mind's own browser hands it a step or a change while another home holds it (write token).
import { ownerRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = ownerRoute;
