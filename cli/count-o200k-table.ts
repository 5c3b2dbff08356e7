// lib/context/count-o200k.ts as the command line's bundle has it: the counts
// from o200k_base.bpe, the table bin/cli-bundle.mjs writes beside the chunks
// (lib/context/bpe-table.ts). Only the bundle loads this module.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { readBpeTable, TableCounter } from "../lib/context/bpe-table";

const FILE = new URL("./o200k_base.bpe", import.meta.url);
let counter: TableCounter | undefined;

// Read from the moment a verb that counts is loaded, while it reads its trajectory (4 MB, ~15 ms read at once on the
// main thread). A count asked before the read is done reads the table itself; a failed read is that count's error.
readFile(FILE).then(
  (bytes) => void (counter ??= new TableCounter(readBpeTable(bytes))),
  () => undefined,
);

export const countO200k = (text: string): number => (counter ??= new TableCounter(readBpeTable(readFileSync(FILE)))).count(text);

/** The table is read at the first count (or as soon as this module loads): nothing to wait for. */
export const loadO200k = (_fetchTable: (path: string) => Promise<Response>): Promise<void> => Promise.resolve();
