import { createAuth } from "./auth/auth.js";
import { loadConfig } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrate } from "./db/migrations.js";
import { systemClock } from "./kit/clock.js";
import { createLogger } from "./kit/logger.js";
import { resolveAuthSecret } from "./kit/secret.js";
import { createMailer } from "./mail/mailer.js";

/** `npm run migrate`: applies every pending migration and exits. */
const logger = createLogger("info");
const config = loadConfig();
const database = await openDatabase(config);
try {
  const mailer = createMailer({
    db: database.db,
    smtpUrl: undefined,
    from: config.mail.from,
    clock: systemClock,
    logger,
  });
  const { options } = createAuth({
    config,
    secret: resolveAuthSecret(config.authSecret, config.dataDir),
    db: database.db,
    mailer,
    logger,
  });
  await migrate(database, options, logger, { full: true });
  logger.info(`database is up to date (${database.description})`);
} finally {
  await database.close();
}
