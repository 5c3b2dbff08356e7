// What the calling client has spent against its caps (and, for the host's admin token, the whole proxy's day).
import { usageRoute } from "@/lib/server/proxy/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return usageRoute(request);
}
