// POST: a guest's message through an invite link.
import { sharedMessagesRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = sharedMessagesRoute;
