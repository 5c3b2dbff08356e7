import { ReplayArchive } from "@/components/replay/ReplaySources";

export default async function ReplayArchivePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ReplayArchive id={id} />;
}
