// An owner's export as one downloadable file.
import { writeTarGz } from "../../archive/write";
import { slugify } from "../../trajectory/headlong";
import { db } from "../db/db";
import { exportEntries } from "./export";

export async function exportArchive(owner: string, name: string): Promise<{ blob: Blob; fileName: string }> {
  const stream = writeTarGz(exportEntries(db(), owner));
  const blob = await new Response(stream).blob();
  return { blob: new Blob([blob], { type: "application/gzip" }), fileName: `${slugify(name)}.tar.gz` };
}
