import { loadConfig } from "./config.js";
import { createLogger } from "./kit/logger.js";
import { prepareDatabase } from "./prepare-database.js";

/** `npm run migrate`: applies every pending migration and exits. */
const logger = createLogger("info");
const config = loadConfig();
const { description } = await prepareDatabase(config, logger, { full: true });
logger.info(`database is up to date (${description})`);
