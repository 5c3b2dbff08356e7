import "server-only";
// o200k_base's token table (lib/context/bpe-table.ts) for the browser: the
// mind's worker counts tokens from it (lib/context/count-o200k-browser.ts)
// instead of loading gpt-tokenizer's 2 MB module at every start. Built from
// the library's own ranks, so the counts are the library's; built once per
// process (about a tenth of a second), or at build time where the route is
// prerendered.
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import { buildBpeTable } from "@/lib/context/bpe-table";

let table: Uint8Array | undefined;

export function o200kTable(): Uint8Array {
  return (table ??= buildBpeTable(ranks));
}

/** GET /o200k_base.bpe: the table's bytes. The same for a given build, so a browser keeps it a day. */
export function tokenTableResponse(): Response {
  const bytes = o200kTable();
  return new Response(bytes.slice().buffer, { headers: { "content-type": "application/octet-stream", "cache-control": "public, max-age=86400" } });
}
