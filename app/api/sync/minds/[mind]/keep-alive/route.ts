// PUT: turn keep-alive on (the server runner thinks for the mind while no tab holds it) or off (write token).
import { keepAliveRoute } from "@/lib/server/runner/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = keepAliveRoute;
