// POST: a mind's first sync; answers its id and write token.
import { mindsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = mindsRoute;
