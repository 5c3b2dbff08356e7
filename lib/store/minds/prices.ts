// This browser's price table (USD per million tokens, keyed provider/model):
// the built-in table with the human's edits on top, kept in the settings
// table under "prices". Read back through the schema, never cast.
import { BUILT_IN_PRICES } from "../../llm/prices";
import { PriceTable } from "../../mind/settings/model";
import type { ReverieDb } from "../db/db";

const KEY = "prices";

/** The edits this browser made (entries that differ from, or add to, the built-in table). */
export async function getPriceEdits(db: ReverieDb): Promise<PriceTable> {
  const row = await db.settings.get(KEY);
  const parsed = PriceTable.safeParse(row?.value);
  return parsed.success ? parsed.data : {};
}

/** The table a mind's calls are priced by in this browser. */
export async function getPriceTable(db: ReverieDb): Promise<PriceTable> {
  return { ...BUILT_IN_PRICES, ...(await getPriceEdits(db)) };
}

/** Save the whole table as the human edited it; what equals the built-in entry is not stored twice. */
export async function setPriceTable(db: ReverieDb, table: PriceTable): Promise<void> {
  const valid = PriceTable.parse(table);
  const edits: PriceTable = {};
  for (const [model, price] of Object.entries(valid)) {
    if (JSON.stringify(BUILT_IN_PRICES[model]) !== JSON.stringify(price)) edits[model] = price;
  }
  await db.settings.put({ key: KEY, value: edits });
}
