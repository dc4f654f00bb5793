import { ConfigError, loadConfig } from "./config.js";
import { createLogger } from "./kit/logger.js";

const logger = createLogger(process.env.LOG_LEVEL === "debug" ? "debug" : "info");

async function main() {
  const config = loadConfig();
  // The server and its packages (Better Auth, PGlite, ...) load only once the configuration
  // holds: a bad variable is reported in a fraction of a second instead of after them.
  const { startKassa } = await import("./server.js");
  const server = await startKassa(config, { logger });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received, shutting down`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  // By name: the database module (and PGlite with it) is not loaded for a configuration error.
  if (error instanceof ConfigError || (error instanceof Error && error.name === "EmbeddedDatabaseRefused")) {
    logger.error(`Kassa cannot start: ${error.message}`);
  } else {
    logger.error("Kassa cannot start", { error });
    if (error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  }
  process.exit(1);
});
