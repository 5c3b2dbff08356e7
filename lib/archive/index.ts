// The archive layer's public surface; everything else in this folder is detail.
export { ArchiveError, type ArchiveEntry, type ArchiveFormat } from "./types";
export { detectFormat, readArchive, type ReadOptions } from "./read";
export { writeTarGz, writeZip, type OutEntry } from "./write";
