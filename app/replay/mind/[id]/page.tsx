import { ReplayMind } from "@/components/replay/ReplaySources";

export default async function ReplayMindPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ReplayMind id={id} />;
}
