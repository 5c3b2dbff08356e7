// GET: the token table the mind's worker counts with (lib/server/assets/token-table.ts).
import { tokenTableResponse } from "@/lib/server/assets/token-table";

export const runtime = "nodejs";
export const dynamic = "force-static";

export function GET(): Response {
  return tokenTableResponse();
}
