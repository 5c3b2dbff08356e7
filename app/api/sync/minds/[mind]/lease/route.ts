// POST: take or renew the mind's lease (one writer at a time); DELETE: let it go (write token).
import { leaseRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = leaseRoute;
