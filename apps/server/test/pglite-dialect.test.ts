// Runs on PGlite only: Kassa's PGlite driver on an in-memory PGlite of its own, whatever the run's engine.
/**
 * Kassa's Kysely driver for PGlite (db/pglite-dialect.ts), on an in-memory PGlite of its own:
 * values go in and come out as through PGlite's own `query()`, prepared statements survive
 * schema changes and eviction, errors keep PostgreSQL's code, and concurrent callers queue.
 */
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUniqueViolation } from "../src/db/errors.js";
import { PGliteDialect } from "../src/db/pglite-dialect.js";

interface Tables {
  item: {
    id: string;
    count: number;
    big: string | number | bigint;
    data: unknown;
    tags: string[];
    at: Date;
    ok: boolean;
    raw: Uint8Array | null;
    note: string | null;
  };
}

let client: PGlite;
let db: Kysely<Tables>;

beforeAll(async () => {
  client = await PGlite.create();
  db = new Kysely<Tables>({ dialect: new PGliteDialect(client) });
  await sql`create table item (
    id text primary key, count int not null, big bigint not null, data jsonb not null,
    tags text[] not null, at timestamptz not null, ok boolean not null, raw bytea, note text
  )`.execute(db);
});

afterAll(async () => {
  await db.destroy();
});

const row = (id: string, extra: Partial<Tables["item"]> = {}) => ({
  id,
  count: 1,
  big: "9007199254740993",
  data: JSON.stringify({ a: [1, "two"], b: null }),
  tags: ["x", "y z", 'q"uote'],
  at: new Date("2026-11-22T10:00:00.123Z"),
  ok: true,
  raw: new Uint8Array([0, 1, 254, 255]),
  note: null,
  ...extra,
});

describe("PGlite dialect", () => {
  it("round-trips json, arrays, bigints, dates, booleans, bytes and nulls as PGlite's query() does", async () => {
    await db.insertInto("item").values(row("a")).execute();
    const viaDriver = await db.selectFrom("item").selectAll().where("id", "=", "a").executeTakeFirstOrThrow();
    const viaQuery = (await client.query("select * from item where id = $1", ["a"])).rows[0];
    expect(viaDriver).toEqual(viaQuery);
    expect(viaDriver.data).toEqual({ a: [1, "two"], b: null });
    expect(viaDriver.tags).toEqual(["x", "y z", 'q"uote']);
    expect(viaDriver.big).toBe(9007199254740993n);
    expect(viaDriver.at).toEqual(new Date("2026-11-22T10:00:00.123Z"));
    expect(viaDriver.ok).toBe(true);
    expect(Array.from(viaDriver.raw ?? [])).toEqual([0, 1, 254, 255]);
    expect(viaDriver.note).toBeNull();
  });

  it("reports affected rows, including none", async () => {
    await db
      .insertInto("item")
      .values([row("b"), row("c")])
      .execute();
    const updated = await db
      .updateTable("item")
      .set({ count: 2 })
      .where("id", "in", ["b", "c"])
      .executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    const none = await db.deleteFrom("item").where("id", "=", "nobody").executeTakeFirst();
    expect(none.numDeletedRows).toBe(0n);
  });

  it("keeps PostgreSQL's error code and leaves the session usable", async () => {
    const error = await db
      .insertInto("item")
      .values(row("a"))
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    const bad = await sql`select * from no_such_table`.execute(db).catch((e: { code?: string }) => e);
    expect((bad as { code?: string }).code).toBe("42P01");
    const again = await db.selectFrom("item").select("id").where("id", "=", "a").execute();
    expect(again).toEqual([{ id: "a" }]);
  });

  it("rolls a failed transaction back and commits a good one", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("item").values(row("t1")).execute();
        await trx.insertInto("item").values(row("a")).execute(); // duplicate: aborts
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await db.selectFrom("item").select("id").where("id", "=", "t1").execute()).toEqual([]);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("item").values(row("t2")).execute();
    });
    expect(await db.selectFrom("item").select("id").where("id", "=", "t2").execute()).toEqual([{ id: "t2" }]);
  });

  it("re-prepares after a schema change instead of failing on a cached plan", async () => {
    const read = () => db.selectFrom("item").selectAll().where("id", "=", "a").executeTakeFirstOrThrow();
    expect(Object.keys(await read())).not.toContain("extra");
    await sql`alter table item add column extra text not null default 'e'`.execute(db);
    expect(await read()).toMatchObject({ id: "a", extra: "e" });
    await sql`alter table item drop column extra`.execute(db);
    expect(Object.keys(await read())).not.toContain("extra");
  });

  it("serves more distinct statements than it keeps prepared", async () => {
    for (let i = 0; i < 300; i++) {
      const r = await sql<{ n: number }>`select ${sql.lit(i)}::int + ${i} as n`.execute(db);
      expect(r.rows[0]?.n).toBe(2 * i);
    }
    const first = await sql<{ n: number }>`select ${sql.lit(0)}::int + ${7} as n`.execute(db);
    expect(first.rows[0]?.n).toBe(7);
  });

  it("queues concurrent statements and transactions on the one session", async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? db.transaction().execute(async (trx) => {
              await trx
                .insertInto("item")
                .values(row(`p${i}`))
                .execute();
              await trx.updateTable("item").set({ count: i }).where("id", "=", `p${i}`).execute();
            })
          : db
              .insertInto("item")
              .values(row(`p${i}`, { count: i }))
              .execute(),
      ),
    );
    const rows = await db.selectFrom("item").select(["id", "count"]).where("id", "like", "p%").execute();
    expect(rows).toHaveLength(40);
    for (const r of rows) expect(r.count).toBe(Number(r.id.slice(1)));
  });
});
