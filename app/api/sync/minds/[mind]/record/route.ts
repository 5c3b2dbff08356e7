// PUT: the mind's settings (never a key), shell state and pacing (write token, lease epoch).
import { recordRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = recordRoute;
