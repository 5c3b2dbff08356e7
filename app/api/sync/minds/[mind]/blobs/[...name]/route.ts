// PUT: one blob's text; blobs never change (write token).
import { blobsRoute } from "@/lib/server/sharing/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, DELETE, PATCH } = blobsRoute;
