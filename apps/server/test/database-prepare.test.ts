// Runs on both databases: named prepared statements on PostgreSQL, and PGlite's driver path.
/**
 * `Database.prepare`: a registered SQL text runs as a named prepared statement on PostgreSQL
 * (parsed once per connection), gives the same rows as before, and keeps working when the
 * table under it changes. On PGlite the call changes nothing (its driver prepares every
 * statement), so there the same queries only have to give the same rows. On PostgreSQL every
 * other statement with parameters that reads or writes rows is named from its second run
 * (db/pg-client.ts), within its bounds, and survives its table changing shape under it.
 */
import { CompiledQuery, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import { markHot } from "../src/db/hot-statements.js";
import { MAX_PREPARED_PER_CONNECTION, MAX_PREPARED_TEXT } from "../src/db/pg-client.js";
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

// Named statements of pg's: PostgreSQL only (PGlite's driver prepares every statement itself).
if (TEST_DB === "postgres")
  describe("every statement prepared from its second run", () => {
    const named = async (text: string) => (await preparedStatements()).filter((s) => s.statement === text);

    it("runs a text unnamed the first time and named from the second, with the same rows", async () => {
      const text = "select t.id, t.a from prep_item t where t.a >= $1 order by t.id";
      expect(await run(text, "2")).toEqual([{ id: "y", a: 2 }]);
      expect(await named(text)).toEqual([]);
      expect(await run(text, "1")).toEqual([
        { id: "x", a: 1 },
        { id: "y", a: 2 },
      ]);
      expect(await named(text)).toEqual([{ name: expect.stringMatching(/^kassa_\d+$/), statement: text }]);
      expect(await run(text, "2")).toEqual([{ id: "y", a: 2 }]);
      // Writes too, in and out of a transaction.
      const insert = "insert into prep_item (id, a) values ($1, 5)";
      for (const id of ["w1", "w2"]) await run(insert, id);
      await database.db.transaction().execute((trx) => trx.executeQuery(CompiledQuery.raw(insert, ["w3"])));
      expect((await named(insert)).length).toBe(1);
      expect(await run("select t.id from prep_item t where t.a = $1 order by t.id", "5")).toEqual([
        { id: "w1" },
        { id: "w2" },
        { id: "w3" },
      ]);
      await run("delete from prep_item where a = $1", "5");
    });

    it("leaves unnamed a text without parameters, one that is not a read or write of rows, and a very long one", async () => {
      const plain = "select t.id from prep_item t where t.a = 1";
      const setting = "select set_config('application_name', $1, false)";
      const long = `select t.id from prep_item t where t.id = $1 ${"and t.a > 0 ".repeat(MAX_PREPARED_TEXT / 12)}`;
      for (let i = 0; i < 3; i++) {
        expect((await database.db.executeQuery(CompiledQuery.raw(plain))).rows).toEqual([{ id: "x" }]);
        expect(await run(long, "y")).toEqual([{ id: "y" }]);
        await database.db.executeQuery(CompiledQuery.raw("show application_name"));
      }
      await run(setting, "kassa-test");
      await run(setting, "kassa-test");
      expect(await named(plain)).toEqual([]);
      expect(await named(long)).toEqual([]);
      // A select is a select, whatever it calls: named like any other.
      expect((await named(setting)).length).toBe(1);
    });

    it("keeps at most its bound of named statements on a connection, closing the least recently used", async () => {
      const texts = Array.from(
        { length: MAX_PREPARED_PER_CONNECTION + 20 },
        (_, i) => `select t.id, ${i} as n from prep_item t where t.id = $1`,
      );
      for (const text of texts) await run(text, "x");
      for (const [i, text] of texts.entries()) expect(await run(text, "x")).toEqual([{ id: "x", n: i }]);
      const kept = async () => (await preparedStatements()).map((s) => s.statement);
      let statements = await kept();
      expect(statements).toHaveLength(MAX_PREPARED_PER_CONNECTION);
      expect(statements).toContain(texts.at(-1));
      expect(statements).not.toContain(texts[0]);
      // The first ones again, in transactions too: answered, named again, the bound kept.
      for (const [i, text] of texts.slice(0, 5).entries()) {
        expect(await run(text, "x")).toEqual([{ id: "x", n: i }]);
        const rows = await database.db
          .transaction()
          .execute(async (trx) => (await trx.executeQuery(CompiledQuery.raw(text, ["x"]))).rows);
        expect(rows).toEqual([{ id: "x", n: i }]);
      }
      statements = await kept();
      expect(statements).toHaveLength(MAX_PREPARED_PER_CONNECTION);
      for (const text of texts.slice(0, 5)) expect(statements).toContain(text);
      expect(statements).not.toContain(texts[5]);
    });
  });

// A table gaining a column under a prepared `select *`, as a newer Kassa's migration would do
// while this one runs. Its own table and connection: the bound above is full on the other one.
if (TEST_DB === "postgres")
  describe("a prepared statement whose rows change shape", () => {
    it("answers outside a transaction with the new column at once; inside one, fails that transaction only; and after the server forgot it", async () => {
      const other = await createTestDatabase();
      const shaped = await openDatabase(
        loadConfig({ ...other.env, DATABASE_POOL_SIZE: "1", LOG_LEVEL: "error" }),
      );
      try {
        await sql`create table prep_shape (id text primary key, a int not null)`.execute(shaped.db);
        await sql`insert into prep_shape values ('x', 1)`.execute(shaped.db);
        const all = "select * from prep_shape where id = $1";
        const read = async () => (await shaped.db.executeQuery(CompiledQuery.raw(all, ["x"]))).rows;
        const readInTransaction = () =>
          shaped.db
            .transaction()
            .execute(async (trx) => (await trx.executeQuery(CompiledQuery.raw(all, ["x"]))).rows);
        await read();
        expect(await read()).toEqual([{ id: "x", a: 1 }]);
        await readInTransaction();
        await sql`alter table prep_shape add column b text not null default 'new'`.execute(shaped.db);
        expect(await read()).toEqual([{ id: "x", a: 1, b: "new" }]);
        await sql`alter table prep_shape add column c int not null default 3`.execute(shaped.db);
        await expect(readInTransaction()).rejects.toThrow(/cached plan must not change result type/);
        expect(await readInTransaction()).toEqual([{ id: "x", a: 1, b: "new", c: 3 }]);
        expect(await read()).toEqual([{ id: "x", a: 1, b: "new", c: 3 }]);
        // The server forgets every statement (as a pooler's reset does): parsed again, answered.
        await sql`deallocate all`.execute(shaped.db);
        expect(await read()).toEqual([{ id: "x", a: 1, b: "new", c: 3 }]);
        await sql`discard all`.execute(shaped.db);
        await expect(readInTransaction()).rejects.toThrow(/does not exist/);
        expect(await readInTransaction()).toEqual([{ id: "x", a: 1, b: "new", c: 3 }]);
        const named = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements
          where statement = ${all}`.execute(shaped.db);
        expect(named.rows[0]?.n).toBe(1);
      } finally {
        await shaped.close();
        await other.drop();
      }
    });
  });

// pg's Describe and RowDescription: PostgreSQL only.
if (TEST_DB === "postgres")
  describe("a prepared statement's rows described once", () => {
    it("reads later runs with the first run's fields, and describes a statement parsed anew", async () => {
      const other = await createTestDatabase();
      const typed = await openDatabase(
        loadConfig({ ...other.env, DATABASE_POOL_SIZE: "1", LOG_LEVEL: "error" }),
      );
      // Every RowDescription pg turns into a result's fields, whichever query class receives it.
      const described = vi.spyOn(
        pg.Query.prototype as unknown as { handleRowDescription(m: unknown): void },
        "handleRowDescription",
      );
      try {
        await sql`create table prep_typed (id text primary key, a int not null, at timestamptz not null,
          doc jsonb not null, price numeric(12,2) not null)`.execute(typed.db);
        await sql`insert into prep_typed values ('x', 1, '2026-11-29T10:00:00Z', '{"k": [1]}', 12.5),
          ('y', 2, '2026-11-30T10:00:00Z', '{"k": []}', 0)`.execute(typed.db);
        const text = "select id, a, at, doc, price from prep_typed where id = $1";
        markHot(text);
        const read = async (id: string) => (await typed.db.executeQuery(CompiledQuery.raw(text, [id]))).rows;
        const x = { id: "x", a: 1, at: new Date("2026-11-29T10:00:00Z"), doc: { k: [1] }, price: "12.50" };
        const y = { id: "y", a: 2, at: new Date("2026-11-30T10:00:00Z"), doc: { k: [] }, price: "0.00" };
        const before = described.mock.calls.length;
        expect(await read("x")).toEqual([x]);
        expect(described.mock.calls.length).toBe(before + 1);
        // Later runs, in and out of a transaction (its `begin` sent with the statement): the same
        // rows, parsed the same way, and nothing described again.
        expect(await read("y")).toEqual([y]);
        expect(await read("nobody")).toEqual([]);
        const inTransaction = await typed.db
          .transaction()
          .execute(async (trx) => (await trx.executeQuery(CompiledQuery.raw(text, ["x"]))).rows);
        expect(inTransaction).toEqual([x]);
        expect(described.mock.calls.length).toBe(before + 1);

        // The column changes type: PostgreSQL refuses the statement, the connection parses it
        // under another name, and its rows are described (and parsed) as they are now.
        await sql`alter table prep_typed alter column a type text using a::text`.execute(typed.db);
        expect(await read("x")).toEqual([{ ...x, a: "1" }]);
        expect(described.mock.calls.length).toBe(before + 2);
        expect(await read("y")).toEqual([{ ...y, a: "2" }]);
        expect(described.mock.calls.length).toBe(before + 2);

        // The server forgets the statement and the column changes again: parsed anew under the
        // same name, described anew, not read with the fields it had before.
        await sql`deallocate all`.execute(typed.db);
        await sql`alter table prep_typed alter column a type boolean using (a = '1')`.execute(typed.db);
        expect(await read("x")).toEqual([{ ...x, a: true }]);
        expect(await read("y")).toEqual([{ ...y, a: false }]);
        expect(described.mock.calls.length).toBe(before + 3);
      } finally {
        described.mockRestore();
        await typed.close();
        await other.drop();
      }
    });
  });

// The switch concerns PostgreSQL only: PGlite has no named statements of pg's to turn off.
if (TEST_DB === "postgres")
  describe("DATABASE_PREPARED_STATEMENTS=off", () => {
    it("sends a registered text, a hot one and any other unnamed, with the same rows", async () => {
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
        // Nor is any other text, however often it runs.
        const plain = "select t.id from prep_item t where t.a = $1";
        for (let i = 0; i < 3; i++)
          expect((await unprepared.db.executeQuery(CompiledQuery.raw(plain, [1]))).rows).toEqual([
            { id: "x" },
          ]);
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
