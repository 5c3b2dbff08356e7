"use client";
// Download a mind or an imported trajectory as a Headlong-layout .tar.gz
// (trajectory folders, blobs, mind.json without keys).
import { useExportArchive } from "@/lib/store/view/hooks";
import { DownloadButton } from "./DownloadButton";

export function ExportButton({ owner, name }: { owner: string; name: string }) {
  const exportArchive = useExportArchive();
  return <DownloadButton testId="export-mind" label="Export" busyLabel="Exporting…" what="Export" make={() => exportArchive(owner, name)} />;
}
