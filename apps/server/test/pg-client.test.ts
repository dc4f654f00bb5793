// Runs on PostgreSQL only: the pg client of Kassa's PostgreSQL pool (PGlite has no network round trips).
/**
 * db/pg-client.ts: a transaction's `begin` goes to the server with its first statement, in one
 * round trip, and everything a transaction did before still holds: its rows commit together or
 * not at all, an error reaches the caller with PostgreSQL's code, the isolation level asked for
 * is the one the transaction runs at, prepared statements work first in a transaction, and the
 * connection is usable after any of it. Round trips are counted as the server's ReadyForQuery
 * messages on the connection.
 */
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isUniqueViolation } from "../src/db/errors.js";
import { markHot } from "../src/db/hot-statements.js";
import { kassaPgClient } from "../src/db/pg-client.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";

interface Tables {
  pgc_item: { id: number; note: string | null };
}

let testDb: TestDatabase;
let pool: pg.Pool;
let db: Kysely<Tables>;
let roundTrips = 0;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const url = testDb.env.DATABASE_URL;
  if (!url) throw new Error("no DATABASE_URL for the PostgreSQL test database");
  // One connection, so every statement below goes through the connection whose answers are counted.
  pool = new pg.Pool({ connectionString: url, max: 1, Client: kassaPgClient(new Map(), true) });
  pool.on("connect", (client) => {
    (client as unknown as { connection: NodeJS.EventEmitter }).connection.on("readyForQuery", () => {
      roundTrips += 1;
    });
  });
  db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  await sql`create table pgc_item (id int primary key, note text)`.execute(db);
});

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

beforeEach(async () => {
  await sql`truncate pgc_item`.execute(db);
  roundTrips = 0;
});

const ids = async () =>
  (await db.selectFrom("pgc_item").select("id").orderBy("id").execute()).map((r) => r.id);

/** Round trips of `run`, counted apart from the reads the test makes afterwards. */
async function counted(run: () => Promise<unknown>): Promise<number> {
  roundTrips = 0;
  await run();
  return roundTrips;
}

describe("Kassa's pg client", () => {
  it("sends a transaction's begin with its first statement: three statements and a commit in four round trips", async () => {
    const trips = await counted(() =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto("pgc_item").values({ id: 1, note: "a" }).execute();
        await trx.insertInto("pgc_item").values({ id: 2, note: "b" }).execute();
        const row = await trx.selectFrom("pgc_item").select("note").where("id", "=", 2).executeTakeFirst();
        expect(row).toEqual({ note: "b" });
      }),
    );
    // begin + insert, insert, select, commit: four; pg's own client makes five.
    expect(trips).toBe(4);
    expect(await ids()).toEqual([1, 2]);
  });

  it("runs the transaction's statements inside one transaction, at the isolation level asked for", async () => {
    const seen = await db
      .transaction()
      .setIsolationLevel("serializable")
      .execute(async (trx) => {
        const first = await sql<{
          level: string;
          xid: string;
        }>`select current_setting('transaction_isolation') as level,
          txid_current()::text as xid`.execute(trx);
        const second = await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx);
        return { level: first.rows[0]?.level, same: first.rows[0]?.xid === second.rows[0]?.xid };
      });
    expect(seen).toEqual({ level: "serializable", same: true });
  });

  it("rolls everything back when the first statement fails, with PostgreSQL's error, and the connection works after", async () => {
    await db.insertInto("pgc_item").values({ id: 1, note: "kept" }).execute();
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("pgc_item").values({ id: 1, note: "duplicate" }).execute();
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isUniqueViolation(failed)).toBe(true);
    const status = await sql<{ open: boolean }>`select now() = statement_timestamp() as open`.execute(db);
    expect(status.rows).toEqual([{ open: true }]); // outside any transaction: now() is this statement's own time
    expect(await db.selectFrom("pgc_item").selectAll().execute()).toEqual([{ id: 1, note: "kept" }]);
  });

  it("rolls back a later failure too, the first statement's row with it", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("pgc_item").values({ id: 5, note: "first" }).execute();
        await sql`select 1 / 0`.execute(trx);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await ids()).toEqual([]);
  });

  it("sends nothing for a transaction that runs no statement", async () => {
    expect(await counted(() => db.transaction().execute(async () => {}))).toBe(0);
    expect(await ids()).toEqual([]);
  });

  it("runs a prepared statement first in a transaction, before and after the connection parsed it", async () => {
    const text = `select id, note from pgc_item where id = $1`;
    markHot(text);
    await db.insertInto("pgc_item").values({ id: 7, note: "seven" }).execute();
    for (let run = 0; run < 3; run++) {
      const rows = await db.transaction().execute(async (trx) => {
        const found = await sql.raw<{ id: number; note: string }>(text.replace("$1", "7")).execute(trx);
        return [
          ...found.rows,
          ...(await trx.executeQuery<{ id: number; note: string }>(compiled(text, 7))).rows,
        ];
      });
      expect(rows).toEqual([
        { id: 7, note: "seven" },
        { id: 7, note: "seven" },
      ]);
    }
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
      db,
    );
    expect(prepared.rows.map((r) => r.statement)).toContain(text);
  });

  it("keeps a prepared statement whose first parse failed usable once the table exists", async () => {
    const text = `select id from pgc_later where id = $1`;
    markHot(text);
    const first = db.transaction().execute((trx) => trx.executeQuery(compiled(text, 1)));
    await expect(first).rejects.toThrow(/pgc_later/);
    await sql`create table pgc_later (id int primary key)`.execute(db);
    await sql`insert into pgc_later values (1)`.execute(db);
    for (let run = 0; run < 2; run++) {
      const rows = await db
        .transaction()
        .execute(async (trx) => (await trx.executeQuery(compiled(text, 1))).rows);
      expect(rows).toEqual([{ id: 1 }]);
    }
  });
});

function compiled(text: string, ...parameters: unknown[]) {
  return CompiledQuery.raw(text, parameters);
}
