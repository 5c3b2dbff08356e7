// POST: a Stop or panic stop from a tab halts the mind on the server too; {halted:false} clears it (write token).
import { haltRoute } from "@/lib/server/runner/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = haltRoute;
