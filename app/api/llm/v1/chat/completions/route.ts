// OpenAI-compatible chat completions through the host's spend-capped proxy.
import { chatCompletionsRoute } from "@/lib/server/proxy/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return chatCompletionsRoute(request);
}
