import type { Metadata } from "next";
import { HarnessCompare } from "@/components/classroom/HarnessCompare";

export const metadata: Metadata = { title: "Harnesses compared · Reverie" };

export default function HarnessesPage() {
  return <HarnessCompare />;
}
