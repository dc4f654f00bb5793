import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, sql } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import pg from "pg";
import type { KassaConfig } from "../config.js";
import type { KassaDatabase } from "./schema.js";

export interface Database {
  db: Kysely<KassaDatabase>;
  kind: "pglite" | "postgres";
  /** Human description for logs (never includes a password). */
  description: string;
  close(): Promise<void>;
}

export class EmbeddedDatabaseRefused extends Error {
  override name = "EmbeddedDatabaseRefused";
}

/**
 * Opens the database the configuration names: PostgreSQL through a pg pool, or an embedded
 * PGlite data directory. PGlite runs PostgreSQL compiled to WebAssembly inside this process
 * with fsync off and no way to turn it on (see docs/decisions.md), so a crash can lose the
 * last committed transactions: in production it is refused unless explicitly allowed.
 */
export async function openDatabase(config: KassaConfig): Promise<Database> {
  if (config.database.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: config.database.url, max: config.database.poolSize });
    const db = new Kysely<KassaDatabase>({ dialect: new PostgresDialect({ pool }) });
    await sql`select 1`.execute(db);
    const url = new URL(config.database.url);
    return {
      db,
      kind: "postgres",
      description: `postgresql://${url.hostname}:${url.port || 5432}${url.pathname}`,
      close: () => db.destroy(),
    };
  }

  if (config.production && !config.allowEmbeddedInProduction) {
    throw new EmbeddedDatabaseRefused(
      "Refusing to start in production on the embedded database (PGlite): it runs with fsync=off, so a " +
        "power loss or crash can lose committed data. Set DATABASE_URL to a PostgreSQL server, or set " +
        "KASSA_ALLOW_EMBEDDED_DB=1 to accept the risk.",
    );
  }
  const dir = path.resolve(config.database.dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const db = new Kysely<KassaDatabase>({ dialect: new PGliteDialect(client) });
  return {
    db,
    kind: "pglite",
    description: `pglite:${dir}`,
    // Kysely's destroy closes the PGlite instance; a process with an open instance never exits.
    close: () => db.destroy(),
  };
}
