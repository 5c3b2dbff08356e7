// The workspace files of one mind (the sandbox's persistent filesystem).
import { z } from "zod";
import type { FileRecord, FileStore } from "../shell/persistent-fs";
import type { ReverieDb } from "./db";

const FileRecordSchema = z.object({
  path: z.string().startsWith("/"),
  kind: z.enum(["file", "dir", "symlink"]),
  data: z.instanceof(Uint8Array).optional(),
  target: z.string().optional(),
  mode: z.number(),
  mtime: z.number(),
});

export function mindFiles(db: ReverieDb, mindId: string): FileStore {
  return {
    async loadAll() {
      const rows = await db.files.where("mind_id").equals(mindId).toArray();
      // A row that does not parse is left out rather than breaking the workspace.
      return rows.flatMap((row): FileRecord[] => {
        const r = FileRecordSchema.safeParse(row);
        return r.success ? [r.data] : [];
      });
    },
    async save(put, remove) {
      await db.transaction("rw", db.files, async () => {
        if (remove.length) await db.files.bulkDelete(remove.map((p) => [mindId, p] as [string, string]));
        if (put.length) await db.files.bulkPut(put.map((r) => ({ ...r, mind_id: mindId })));
      });
    },
  };
}
