// GET: the mind's memories and goals, for an operator's invite page; POST: an operator's change to them.
import { sharedMemoryRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedMemoryRoute;
