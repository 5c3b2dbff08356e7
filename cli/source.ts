// What a <path> on the command line is read as: a file (trajectory.jsonl,
// .zip, .tar.gz, .tar) as a Blob, or a Headlong trajectory folder as it lies
// on disk (trajectory.jsonl, blobs/ beside it, child trajectories in
// `<hex8>-<slug>/` folders inside it) as lib/archive's UnpackedTree: the same
// entries, in the same one-pass stream, as that folder packed. Files are
// streamed in chunks, never read whole.
import { openAsBlob } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { basename } from "node:path";
import { makeEntry, type ArchiveSource, type UnpackedTree } from "../lib/archive";
import { noTrajectoryIn, walk, type FolderFile } from "./folder-walk";

export interface Opened {
  source: ArchiveSource;
  /** The name formats are told by when the bytes do not tell. */
  name: string;
  kind: "file" | "folder";
}

export async function openPath(path: string): Promise<Opened> {
  const s = await stat(path);
  if (!s.isDirectory()) return { source: await openAsBlob(path), name: basename(path), kind: "file" };
  const files = await walk(path);
  noTrajectoryIn(path, files);
  return { source: folderTree(files), name: basename(path), kind: "folder" };
}

function folderTree(files: FolderFile[]): UnpackedTree {
  return {
    size: files.reduce((n, f) => n + f.size, 0),
    async *entries({ signal, progress }) {
      for (const f of files) {
        signal?.throwIfAborted();
        let stream: ReadableStream<Uint8Array> | undefined;
        const entry = makeEntry(f.rel, f.size, {
          open: () => (stream = fileStream(f.abs, progress, signal)),
          // Fails harmlessly while the caller still holds a reader; then it is theirs to finish.
          discard: async () => void (await stream?.cancel().catch(() => undefined)),
        });
        yield entry;
        await entry.skip();
      }
    },
  };
}

/** Chunks handed out: as the archive readers hand them. */
const CHUNK = 64 * 1024;

/** A file's bytes, read only as they are pulled; the file is closed at its end, on cancel, or on a failed read. */
function fileStream(path: string, progress: (bytes: number) => void, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let handle: FileHandle | undefined;
  const close = async () => {
    const h = handle;
    handle = undefined;
    await h?.close().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          signal?.throwIfAborted();
          handle ??= await open(path, "r");
          const buffer = new Uint8Array(CHUNK);
          const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
          if (bytesRead === 0) {
            await close();
            controller.close();
            return;
          }
          progress(bytesRead);
          controller.enqueue(buffer.subarray(0, bytesRead));
        } catch (error) {
          await close();
          throw error;
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}
