import { createHash } from "node:crypto";
import type { BetterAuthOptions } from "better-auth";
import { getSchema } from "better-auth/db";
import { getMigrations } from "better-auth/db/migration";
import { type Kysely, type MigrationProvider, Migrator, sql } from "kysely";
import type { Logger } from "../kit/logger.js";
import type { Database } from "./database.js";
import { kassaMigrations } from "./migrations/index.js";
import type { KassaDatabase } from "./schema.js";

/**
 * Better Auth's tables are migrated first by its own migrator (`getMigrations`), which
 * compares the live schema with the configured plugins and only adds what is missing; then
 * Kassa's own migrations (`migrations/`, one file each).
 */
const provider: MigrationProvider = { getMigrations: async () => kassaMigrations };

/**
 * What the schema should be: Better Auth's tables as the configured plugins define them (their
 * names, fields, types, references and indexes; functions and validators left out) and the names
 * of Kassa's migrations, hashed. Undefined if it cannot be computed, which means a full check.
 */
export function schemaFingerprint(authOptions: BetterAuthOptions): string | undefined {
  try {
    const auth = JSON.stringify(getSchema(authOptions), (key, value) =>
      key === "validator" || typeof value === "function" ? undefined : value,
    );
    const kassa = Object.keys(kassaMigrations).join(",");
    return createHash("sha256").update(auth).update("\n").update(kassa).digest("hex");
  } catch {
    return undefined;
  }
}

async function storedFingerprint(db: Kysely<KassaDatabase>): Promise<string | undefined> {
  try {
    const row = await sql<{
      fingerprint: string;
    }>`select fingerprint from kassa_schema_state where id = 1`.execute(db);
    return row.rows[0]?.fingerprint;
  } catch (error) {
    // 42P01: the table is not there yet (a database no version with it has migrated).
    if ((error as { code?: unknown }).code === "42P01") return undefined;
    throw error;
  }
}

// Arbitrary constant: the advisory lock that serializes migrations between server processes.
const MIGRATION_LOCK = 7_262_011;

/**
 * Kassa's own migrations (after Better Auth's: some of them refer to its tables), all of them,
 * or up to and including `until` (a migration's name: how a test builds the database an older
 * version left, to migrate it with rows in it).
 */
export async function migrateKassa(db: Kysely<KassaDatabase>, logger: Logger, until?: string) {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "kassa_migration",
    migrationLockTableName: "kassa_migration_lock",
  });
  const { error, results } = until ? await migrator.migrateTo(until) : await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === "Success") logger.info(`applied migration ${r.migrationName}`);
    if (r.status === "Error") logger.error(`migration ${r.migrationName} failed`);
  }
  if (error) throw error;
}

/**
 * Brings the schema up to date: Better Auth's (compared with the live schema by its own
 * `getMigrations`), then Kassa's. A server start skips both when the schema fingerprint stored
 * by the last full run is the one this version expects: comparing Better Auth's schema with the
 * live one reads the catalogue table by table, a third of a second of every start on PGlite.
 * `npm run migrate` (`full`) always compares. `until` stops Kassa's migrations after that one
 * (tests of a migration over an older version's rows) and stores no fingerprint.
 */
export async function migrate(
  database: Database,
  authOptions: BetterAuthOptions,
  logger: Logger,
  options: { full?: boolean; until?: string } = {},
) {
  // A database stopped short of the latest migration is not up to date: no fingerprint for it.
  const fingerprint = options.until ? undefined : schemaFingerprint(authOptions);
  const run = async () => {
    if (
      !options.full &&
      !options.until &&
      fingerprint &&
      (await storedFingerprint(database.db)) === fingerprint
    ) {
      logger.debug("schema is up to date (fingerprint unchanged)");
      return;
    }
    const auth = await getMigrations(authOptions);
    if (auth.toBeCreated.length > 0 || auth.toBeAdded.length > 0) {
      logger.info("migrating Better Auth schema", {
        create: auth.toBeCreated.map((t) => t.table),
        alter: auth.toBeAdded.map((t) => t.table),
      });
      await auth.runMigrations();
    }
    await migrateKassa(database.db, logger, options.until);
    if (fingerprint)
      await sql`insert into kassa_schema_state (id, fingerprint) values (1, ${fingerprint})
        on conflict (id) do update set fingerprint = excluded.fingerprint, updated_at = now()`.execute(
        database.db,
      );
  };

  if (database.kind === "pglite") {
    // One process owns a PGlite data dir, and its single connection cannot be held for a lock.
    await run();
    return;
  }
  await database.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await run();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
