// A fresh, open database per test (fake-indexeddb), named so tests never share one.
import { ReverieDb } from "@/lib/store/db/db";

let count = 0;

export async function openTestDb(label: string): Promise<ReverieDb> {
  const db = new ReverieDb(`${label}-${process.pid}-${++count}`);
  await db.open();
  return db;
}
