// Every other /api/llm path answers JSON, so a client that probes the proxy
// learns "not configured" or "no such endpoint" rather than an HTML page.
import { otherLlmRoute } from "@/lib/server/proxy/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = otherLlmRoute;
export const POST = otherLlmRoute;
