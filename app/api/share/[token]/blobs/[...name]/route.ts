// GET: one blob of a shared mind, as text.
import { sharedBlobsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedBlobsRoute;
