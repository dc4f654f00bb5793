/**
 * Baselines: a bare Hono route doing one primary-key select (`GET /baseline`), and one doing
 * one insert of a row with a fresh id (`POST /baseline`, for the writes), on the same kind of
 * database, in its own process like the Kassa server.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";

const config = loadConfig();
const database = await openDatabase(config);
const db = database.db;
await sql`create table if not exists bench_baseline (id uuid primary key, token text not null, expires_at timestamptz not null)`.execute(
  db,
);
const id = "00000000-0000-4000-8000-000000000001";
await sql`insert into bench_baseline values (${id}, 'token', now() + interval '1 day') on conflict do nothing`.execute(
  db,
);

await sql`create table if not exists bench_baseline_write (id uuid primary key, name text not null, created_at timestamptz not null)`.execute(
  db,
);

const app = new Hono();
app.post("/baseline", async (c) => {
  const body = (await c.req.json()) as { name?: string };
  const row = await sql<{
    id: string;
    name: string;
    created_at: Date;
  }>`insert into bench_baseline_write values (${randomUUID()}, ${body.name ?? ""}, now()) returning *`.execute(
    db,
  );
  return c.json(row.rows[0] ?? null, 201);
});
app.get("/baseline", async (c) => {
  const row = await sql<{
    id: string;
    token: string;
    expires_at: Date;
  }>`select * from bench_baseline where id = ${id}`.execute(db);
  return c.json({ session: row.rows[0] ?? null });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});
process.on("SIGTERM", () => server.close(() => database.close().then(() => process.exit(0))));
