import { ArchiveView } from "@/components/viewer/ArchiveView";

export default async function ViewPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ArchiveView id={id} />;
}
