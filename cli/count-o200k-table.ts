// lib/context/count-o200k.ts as the command line's bundle has it: the counts
// from o200k_base.bpe, the table bin/cli-bundle.mjs writes beside the chunks
// (lib/context/bpe-table.ts). Only the bundle loads this module.
import { readFileSync } from "node:fs";
import { readBpeTable, TableCounter } from "../lib/context/bpe-table";

const FILE = new URL("./o200k_base.bpe", import.meta.url);
let counter: TableCounter | undefined;

// Read at the first count, at once (4 MB, a few ms): `reverie context` reads its files without waiting on the event
// loop, so a read begun in the background when this module loaded was not done by then, and the table was read twice.
/**
 * Counts by text: `reverie context` prints each message's tokens, and a
 * message that is one step's or one summary's text was counted as the context
 * was worked out (the same string: its hash is kept in it, so asking again
 * costs next to nothing). Let go of now and then: eval's runs are long.
 */
const counted = new Map<string, number>();
const COUNTED = 20_000;

export const countO200k = (text: string): number => {
  let n = counted.get(text);
  if (n === undefined) {
    n = (counter ??= new TableCounter(readBpeTable(readFileSync(FILE)))).count(text);
    if (counted.size >= COUNTED) counted.clear();
    counted.set(text, n);
  }
  return n;
};

/** The table is read at the first count: nothing to wait for. */
export const loadO200k = (_fetchTable: (path: string) => Promise<Response>): Promise<void> => Promise.resolve();
