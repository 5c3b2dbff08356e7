import type { Metadata } from "next";
import { ReplayShared } from "@/components/replay/ReplaySources";

// A capability URL, as /s/<token> is: out of search engines and referrers.
export const metadata: Metadata = { title: "A shared mind, replayed · Reverie", robots: { index: false, follow: false }, referrer: "no-referrer" };

export default async function ReplaySharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <ReplayShared token={token} />;
}
