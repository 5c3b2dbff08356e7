// GET: where a step sits in a shared mind.
import { sharedLocateRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedLocateRoute;
