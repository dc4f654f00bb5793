import { sql } from "kysely";
import { createAuth } from "./auth/auth.js";
import type { KassaConfig } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrate } from "./db/migrations.js";
import { systemClock } from "./kit/clock.js";
import type { Logger } from "./kit/logger.js";
import { resolveAuthSecret } from "./kit/secret.js";
import { createMailer } from "./mail/mailer.js";

/**
 * Brings the database up to date outside a server: `npm run migrate` (`full`: always compares
 * the live schema) and the cluster's primary before it forks (the workers then find the schema
 * fingerprint unchanged and start without waiting on each other's migration lock). It also
 * settles the auth secret: a generated one is written to the data directory here, once, so
 * every worker reads the same. Answers PostgreSQL's `max_connections` (undefined on PGlite).
 */
export async function prepareDatabase(
  config: KassaConfig,
  logger: Logger,
  options: { full?: boolean; until?: string } = {},
): Promise<{ description: string; maxConnections: number | undefined }> {
  const secret = resolveAuthSecret(config.authSecret, config.dataDir);
  const database = await openDatabase(config, logger);
  try {
    // Better Auth's options (which the migrations read) need a mailer; this one never sends.
    const mailer = createMailer({
      db: database.db,
      smtpUrl: undefined,
      from: config.mail.from,
      clock: systemClock,
      logger,
    });
    const { options: authOptions } = createAuth({ config, secret, db: database.db, mailer, logger });
    await migrate(database, authOptions, logger, options);
    let maxConnections: number | undefined;
    if (database.kind === "postgres") {
      const row = await sql<{ max: number }>`select current_setting('max_connections')::int as max`.execute(
        database.db,
      );
      maxConnections = row.rows[0]?.max;
    }
    return { description: database.description, maxConnections };
  } finally {
    await database.close();
  }
}
