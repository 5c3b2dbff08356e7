// What a <path> on the command line is read as: a file (trajectory.jsonl,
// .zip, .tar.gz, .tar) as a Blob, or a Headlong trajectory folder as it lies
// on disk (trajectory.jsonl, blobs/ beside it, child trajectories in
// `<hex8>-<slug>/` folders inside it) as lib/archive's UnpackedTree: the same
// entries, in the same one-pass stream, as that folder packed. Files are
// streamed in chunks, never read whole.
import { openAsBlob, type Dirent } from "node:fs";
import { open, readdir, stat, type FileHandle } from "node:fs/promises";
import { basename, join } from "node:path";
import { makeEntry, type ArchiveSource, type UnpackedTree } from "../lib/archive";
import { TRAJECTORY_FILE } from "../lib/trajectory/headlong";
import { ArgumentError } from "./out";

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
  if (!files.some((f) => basename(f.rel) === TRAJECTORY_FILE)) {
    throw new ArgumentError(`${path} is a folder with no ${TRAJECTORY_FILE} in it or in its subfolders; give a Headlong trajectory folder, a ${TRAJECTORY_FILE}, .zip or .tar.gz`);
  }
  return { source: folderTree(files), name: basename(path), kind: "folder" };
}

interface FolderFile {
  /** "/"-separated, relative to the folder given. */
  rel: string;
  abs: string;
  size: number;
}

/**
 * Every regular file under `root`, as a tar of the folder would hold them
 * minus its links: symlinks are not followed (a tar keeps them as links, which
 * readers skip). In each folder its trajectory.jsonl first, then its other
 * files, then its folders, each by name: a parent trajectory is read before
 * its children, whatever the names.
 */
async function walk(root: string, rel = ""): Promise<FolderFile[]> {
  const dir = rel ? join(root, rel) : root;
  const entries = (await readdir(dir, { withFileTypes: true })).sort(byName);
  const files = entries.filter((e) => e.isFile()).sort((a, b) => Number(b.name === TRAJECTORY_FILE) - Number(a.name === TRAJECTORY_FILE));
  // The sizes asked all at once: a trajectory's blobs/ holds hundreds of files, and one stat after another waits on each.
  const out: FolderFile[] = await Promise.all(
    files.map(async (f) => {
      const path = rel ? `${rel}/${f.name}` : f.name;
      return { rel: path, abs: join(root, path), size: (await stat(join(root, path))).size };
    }),
  );
  for (const d of entries.filter((e) => e.isDirectory())) out.push(...(await walk(root, rel ? `${rel}/${d.name}` : d.name)));
  return out;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

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
