// One statement on a PostgreSQL server as its admin (CREATE or DROP DATABASE for a bench's own database), on a connection of its own.
import pg from "pg";

export async function admin(url, statement) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}
