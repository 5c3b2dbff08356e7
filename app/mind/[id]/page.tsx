import { MindView } from "@/components/mind/MindView";

export default async function MindPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <MindView mindId={id} />;
}
