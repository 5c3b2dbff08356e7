// GET: a page of a shared mind's steps, bounded by the link.
import { sharedStepsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedStepsRoute;
