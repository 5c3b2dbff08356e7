// POST: workspace entries whole, as many as fit in one answer (write token).
import { filesReadRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = filesReadRoute;
