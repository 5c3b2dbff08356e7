// o200k_base token counts in a browser (the mind's worker): from the flat
// table of lib/context/bpe-table.ts (the command line's, the same counts to
// the token), fetched once from the app, in place of gpt-tokenizer's 2 MB
// module. Loading that module (parsing it, then building its Map of 200,000
// token strings) held a mind's worker back 0.5–0.9 s at every start, and a
// reopened tab's mind waited for it. package.json's "imports" gives browser
// bundles this module as #count-o200k; Node (the server, its runner, the
// tests) gets count-o200k.ts, which loads the library.
import { readBpeTable, TableCounter } from "./bpe-table";

/** Where the app serves the table (app/o200k_base.bpe/route.ts). */
export const O200K_TABLE_PATH = "/o200k_base.bpe";

let counter: TableCounter | undefined;
let loading: Promise<void> | undefined;

/** How the table is fetched (the worker passes its fetch: I/O comes through the caller). */
export type TableFetch = (path: string) => Promise<Response>;

/** Fetch the table (once; a failed load is tried again at the next call). Counting waits for this. */
export function loadO200k(fetchTable: TableFetch): Promise<void> {
  loading ??= (async () => {
    const res = await fetchTable(O200K_TABLE_PATH);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    counter = new TableCounter(readBpeTable(new Uint8Array(await res.arrayBuffer())));
  })().catch((e: unknown) => {
    loading = undefined;
    throw new Error(`Could not load the token counter's table (${O200K_TABLE_PATH}): ${e instanceof Error ? e.message : String(e)}`);
  });
  return loading;
}

export function countO200k(text: string): number {
  if (!counter) throw new Error("The token counter's table is not loaded yet: await loadO200k() before counting.");
  return counter.count(text);
}
