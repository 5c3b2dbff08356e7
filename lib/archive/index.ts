// The archive layer's public surface; everything else in this folder is detail.
export { ArchiveError, type ArchiveEntry, type ArchiveFormat, type ArchiveSource, type UnpackedTree } from "./types";
export { detectFormat, readArchive, type ReadOptions } from "./read";
export { makeEntry, type EntrySource } from "./entry";
export { ARCHIVE_LIMITS, type ArchiveLimits, byteSize } from "./limits";
export { writeTarGz, writeZip, type OutEntry } from "./write";
