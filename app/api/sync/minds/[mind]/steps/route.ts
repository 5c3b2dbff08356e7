// POST: a batch of steps, all or nothing (write token).
import { stepsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = stepsRoute;
