// POST: write and remove workspace files at the versions they came from; a stale write keeps both copies (write token, lease epoch).
import { filesRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = filesRoute;
