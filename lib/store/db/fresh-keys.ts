// A query on a virtual index (a prefix of a compound one, such as the steps'
// [mind_id+traj_id+seq] of [mind_id+traj_id+seq+type+step_id]) reaches
// IndexedDB with its bounds padded by Dexie with the same max-key object
// twice ([m, t, seq, [[]], [[]]] for an inclusive upper bound). IndexedDB's
// key conversion (https://w3c.github.io/IndexedDB/#convert-value-to-key)
// refuses a key that holds one object twice, as it refuses a cycle, with a
// DataError (fake-indexeddb does, as the spec says). Below Dexie's virtual
// indexes, every range's bounds are given as fresh arrays. Cursors moved on
// to a key (anyOf, ignore-case searches) are not covered: no query on a
// virtual index here uses them.
import type { DBCore, DBCoreKeyRange, DBCoreTable, Middleware } from "dexie";

/** The key with every array in it a copy of its own. */
function fresh(key: unknown): unknown {
  return Array.isArray(key) ? key.map(fresh) : key;
}

const freshRange = (range: DBCoreKeyRange): DBCoreKeyRange => (Array.isArray(range.lower) || Array.isArray(range.upper) ? { ...range, lower: fresh(range.lower), upper: fresh(range.upper) } : range);

export const freshKeys: Middleware<DBCore> = {
  stack: "dbcore",
  name: "FreshKeys",
  // Dexie's virtual indexes are level 1 (its observability and cache, 0): this sits between, on what they send down.
  level: 0.5,
  create: (down) => ({
    ...down,
    table(name: string): DBCoreTable {
      const table = down.table(name);
      return {
        ...table,
        query: (req) => table.query({ ...req, query: { ...req.query, range: freshRange(req.query.range) } }),
        count: (req) => table.count({ ...req, query: { ...req.query, range: freshRange(req.query.range) } }),
        openCursor: (req) => table.openCursor({ ...req, query: { ...req.query, range: freshRange(req.query.range) } }),
      };
    },
  }),
};
