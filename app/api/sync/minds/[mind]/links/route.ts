// GET lists, POST creates a share or invite link (write token).
import { linksRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = linksRoute;
