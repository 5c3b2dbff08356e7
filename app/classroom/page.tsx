import type { Metadata } from "next";
import { ClassroomIndex } from "@/components/classroom/ClassroomIndex";

export const metadata: Metadata = { title: "Classroom · Reverie" };

export default function ClassroomPage() {
  return <ClassroomIndex />;
}
