// GET: what a share link shows (404 for unknown or revoked links).
import { sharedRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedRoute;
