// Runs on both databases: named prepared statements on PostgreSQL, and PGlite's driver path.
/**
 * `Database.prepare`: a registered SQL text runs as a named prepared statement on PostgreSQL
 * (parsed once per connection), gives the same rows as before, and keeps working when the
 * table under it changes. On PGlite the call changes nothing (its driver prepares every
 * statement), so there the same queries only have to give the same rows.
 */
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import { markHot } from "../src/db/hot-statements.js";
import { createTestDatabase, TEST_DB, type TestDatabase } from "./support/database.js";

let testDb: TestDatabase;
let database: Database;

const ROW = "select to_jsonb(t) as row from prep_item t where t.id = $1";
const PLAIN = "select t.a from prep_item t where t.id = $1";

beforeAll(async () => {
  testDb = await createTestDatabase();
  // One connection, so the statements this test inspects are those of the connection it asks.
  database = await openDatabase(loadConfig({ ...testDb.env, DATABASE_POOL_SIZE: "1", LOG_LEVEL: "error" }));
  await sql`create table prep_item (id text primary key, a int not null)`.execute(database.db);
  await sql`insert into prep_item values ('x', 1), ('y', 2)`.execute(database.db);
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const run = async (text: string, id: string) =>
  (await database.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, [id]))).rows;

/** The connection's prepared statements by name (PostgreSQL only). */
const preparedStatements = async () =>
  (
    await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements`.execute(database.db)
  ).rows;

describe("Database.prepare", () => {
  it("runs a registered text as a named statement with the same rows, and leaves other texts alone", async () => {
    expect(await run(ROW, "x")).toEqual([{ row: { id: "x", a: 1 } }]);
    database.prepare(ROW);
    database.prepare(ROW); // registering twice is harmless
    expect(await run(ROW, "x")).toEqual([{ row: { id: "x", a: 1 } }]);
    expect(await run(ROW, "y")).toEqual([{ row: { id: "y", a: 2 } }]);
    expect(await run(ROW, "nobody")).toEqual([]);
    expect(await run(PLAIN, "y")).toEqual([{ a: 2 }]);
    if (TEST_DB === "postgres") {
      const statements = await preparedStatements();
      expect(statements.filter((s) => s.statement === ROW)).toEqual([{ name: "kassa_1", statement: ROW }]);
      expect(statements.some((s) => s.statement === PLAIN)).toBe(false);
    }
  });

  it("runs a text a module marked hot as a named statement at its first run, with the same rows", async () => {
    const HOT = "select t.id, t.a from prep_item t where t.id = $1 and t.a > 0";
    expect(await run(HOT, "y")).toEqual([{ id: "y", a: 2 }]);
    markHot(HOT);
    expect(await run(HOT, "y")).toEqual([{ id: "y", a: 2 }]);
    expect(await run(HOT, "x")).toEqual([{ id: "x", a: 1 }]);
    if (TEST_DB === "postgres") {
      const statements = await preparedStatements();
      expect(statements.filter((s) => s.statement === HOT)).toEqual([
        { name: expect.stringMatching(/^kassa_\d+$/), statement: HOT },
      ]);
    }
  });

  it("keeps working after the table changes under the prepared statement", async () => {
    database.prepare(ROW);
    expect(await run(ROW, "x")).toEqual([{ row: { id: "x", a: 1 } }]);
    await sql`alter table prep_item add column b text not null default 'new'`.execute(database.db);
    expect(await run(ROW, "x")).toEqual([{ row: { id: "x", a: 1, b: "new" } }]);
  });

  it("reports a bad parameter of a prepared statement as PostgreSQL does, and the statement stays usable", async () => {
    const byA = "select t.id from prep_item t where t.a = $1";
    database.prepare(byA);
    await expect(run(byA, "not a number")).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await run(byA, "2")).toEqual([{ id: "y" }]);
  });
});

// The switch concerns PostgreSQL only: PGlite has no named statements of pg's to turn off.
if (TEST_DB === "postgres")
  describe("DATABASE_PREPARED_STATEMENTS=off", () => {
    it("sends a registered text unnamed, with the same rows", async () => {
      const other = await createTestDatabase();
      const unprepared = await openDatabase(
        loadConfig({
          ...other.env,
          DATABASE_POOL_SIZE: "1",
          DATABASE_PREPARED_STATEMENTS: "off",
          LOG_LEVEL: "error",
        }),
      );
      try {
        await sql`create table prep_item (id text primary key, a int not null)`.execute(unprepared.db);
        await sql`insert into prep_item values ('x', 1)`.execute(unprepared.db);
        unprepared.prepare(ROW);
        const rows = await unprepared.db.executeQuery(CompiledQuery.raw(ROW, ["x"]));
        expect(rows.rows).toEqual([{ row: { id: "x", a: 1 } }]);
        const hot = "select t.a from prep_item t where t.id = $1 and t.a < 9";
        markHot(hot);
        const hotRows = await unprepared.db.executeQuery(CompiledQuery.raw(hot, ["x"]));
        expect(hotRows.rows).toEqual([{ a: 1 }]);
        const statements = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(
          unprepared.db,
        );
        expect(statements.rows).toEqual([]);
      } finally {
        await unprepared.close();
        await other.drop();
      }
    });
  });

it("refuses a DATABASE_PREPARED_STATEMENTS that is neither on nor off", () => {
  expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: "maybe" })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
});
