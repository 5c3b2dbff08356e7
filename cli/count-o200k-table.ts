// lib/context/count-o200k.ts as the command line's bundle has it: the counts
// from o200k_base.bpe, the table bin/cli-bundle.mjs writes beside the chunks
// (lib/context/bpe-table.ts). Only the bundle loads this module.
import { readFileSync } from "node:fs";
import { readBpeTable, TableCounter } from "../lib/context/bpe-table";

const FILE = new URL("./o200k_base.bpe", import.meta.url);
let counter: TableCounter | undefined;

// Read at the first count, at once (4 MB, a few ms): `reverie context` reads its files without waiting on the event
// loop, so a read begun in the background when this module loaded was not done by then, and the table was read twice.
export const countO200k = (text: string): number => (counter ??= new TableCounter(readBpeTable(readFileSync(FILE)))).count(text);

/** The table is read at the first count: nothing to wait for. */
export const loadO200k = (_fetchTable: (path: string) => Promise<Response>): Promise<void> => Promise.resolve();
