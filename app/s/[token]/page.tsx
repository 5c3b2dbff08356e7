import type { Metadata } from "next";
import { SharedView } from "@/components/share/SharedView";

// A capability URL: keep it out of search engines and out of referrers.
export const metadata: Metadata = { title: "A shared mind · Reverie", robots: { index: false, follow: false }, referrer: "no-referrer" };

export default async function SharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <SharedView token={token} />;
}
