import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { KassaConfig } from "../config.js";
import { createLogger, type Logger } from "../kit/logger.js";
import { kassaPgClient } from "./pg-client.js";
import { PGliteDialect } from "./pglite-dialect.js";
import type { KassaDatabase } from "./schema.js";

export interface Database {
  db: Kysely<KassaDatabase>;
  kind: "pglite" | "postgres";
  /** Human description for logs (never includes a password). */
  description: string;
  /**
   * Calls `onNotify` on every `NOTIFY channel` (sent at the commit of the transaction that
   * issued it). Used to wake the job worker at once instead of at its next poll; returns the
   * unsubscribe function. Best effort: polling remains the guarantee.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Asks that this exact SQL text (as Kysely compiles it) run as a prepared statement from its
   * first run; every other statement with parameters is prepared from its second (db/pg-client.ts).
   * For the hottest fixed queries, best with their result columns listed: a column added under a
   * prepared `select *` makes PostgreSQL refuse it once on each connection (pg-client.ts then
   * parses it again). On PGlite it changes nothing: Kassa's driver prepares every statement there.
   */
  prepare(sqlText: string): void;
  /**
   * On PGlite only (one process writes it): how many statements that may write have run so far
   * (`PGliteDialect.writes`). While it stands still, nothing in the database changed. Absent on
   * PostgreSQL, where other processes write.
   */
  writeCount?: () => number;
  close(): Promise<void>;
}

/** The engine under each database handle `openDatabase` made. */
const engines = new WeakMap<object, Database["kind"]>();

/** The engine of a handle `openDatabase` made (undefined for another, a transaction's say). */
export function engineOf(db: object): Database["kind"] | undefined {
  return engines.get(db);
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
export async function openDatabase(
  config: KassaConfig,
  logger: Logger = createLogger(config.logLevel),
): Promise<Database> {
  if (config.database.kind === "postgres") {
    const connectionString = config.database.url;
    const preparing = config.database.preparedStatements;
    const prepared = new Map<string, string>();
    const pool = new pg.Pool({
      connectionString,
      max: config.database.poolSize,
      Client: kassaPgClient(prepared, preparing),
    });
    // An idle connection the server ends (a restart, an administrator, a dropped database) is
    // an 'error' event of the pool; unheard, it would kill the process. The pool has already
    // discarded that connection and opens another when one is needed.
    pool.on("error", (error) => logger.warn("database connection lost", { error: error.message }));
    const db = new Kysely<KassaDatabase>({ dialect: new PostgresDialect({ pool }) });
    engines.set(db, "postgres");
    await sql`select 1`.execute(db);
    const url = new URL(config.database.url);
    const listeners = new Set<pg.Client>();
    return {
      db,
      kind: "postgres",
      description: `postgresql://${url.hostname}:${url.port || 5432}${url.pathname}`,
      async listen(channel, onNotify) {
        // A connection of its own: LISTEN holds it for the life of the process.
        const client = new pg.Client({ connectionString });
        client.on("notification", (n) => {
          if (n.channel === channel) onNotify();
        });
        client.on("error", () => listeners.delete(client)); // polling carries on
        await client.connect();
        await client.query(`listen "${channel.replace(/"/g, "")}"`);
        listeners.add(client);
        return async () => {
          listeners.delete(client);
          await client.end().catch(() => {});
        };
      },
      prepare(sqlText) {
        if (!preparing) return;
        if (!prepared.has(sqlText)) prepared.set(sqlText, `kassa_${prepared.size + 1}`);
      },
      async close() {
        for (const client of listeners) await client.end().catch(() => {});
        listeners.clear();
        await db.destroy();
      },
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
  // PGlite's pages sit in its memory and its files are read through the process: a page read
  // at random costs about what one read in order does. PostgreSQL's default (4 against 1) made
  // a join of one customer meter hash the whole customers table instead of probing its key.
  await client.exec("set random_page_cost = 1.1");
  // A data directory on disk: PGlite's Node file system writes through, nothing to sync.
  const dialect = new PGliteDialect(client, { syncToFs: false });
  const db = new Kysely<KassaDatabase>({ dialect });
  engines.set(db, "pglite");
  return {
    db,
    kind: "pglite",
    writeCount: () => dialect.writes.count,
    description: `pglite:${dir}`,
    listen: async (channel, onNotify) => {
      const unsubscribe = await client.listen(channel, onNotify);
      return () => unsubscribe();
    },
    prepare: () => {},
    // Kysely's destroy closes the PGlite instance; a process with an open instance never exits.
    close: () => db.destroy(),
  };
}
