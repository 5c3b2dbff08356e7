// GET: where a synced mind's upload resumes (write token).
import { mindRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = mindRoute;
