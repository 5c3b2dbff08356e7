import { MindView } from "@/components/MindView";

export default async function MindPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <MindView mindId={id} />;
}
