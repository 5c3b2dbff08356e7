// The models the host's proxy offers, with their prices.
import { modelsRoute } from "@/lib/server/proxy/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return modelsRoute(request);
}
