import cluster from "node:cluster";
import { ConfigError, loadConfig } from "./config.js";
import { createLogger } from "./kit/logger.js";

const logger = createLogger(
  process.env.LOG_LEVEL === "debug" ? "debug" : "info",
  cluster.isWorker ? `worker ${cluster.worker?.id} pid ${process.pid}` : undefined,
);

async function main() {
  const config = loadConfig();
  if (cluster.isPrimary && config.webConcurrency > 1) {
    // The primary only migrates and supervises the workers, which run this file again.
    const { runCluster } = await import("./cluster.js");
    await runCluster(config, logger);
    return;
  }
  // The server and its packages (Better Auth, PGlite, ...) load only once the configuration
  // holds: a bad variable is reported in a fraction of a second instead of after them.
  const { startKassa } = await import("./server.js");
  if (cluster.isPrimary)
    logger.info(
      config.database.kind === "pglite"
        ? "one process: the embedded database (PGlite) is opened by one process only; set DATABASE_URL to use every core"
        : "one process (WEB_CONCURRENCY=1)",
    );
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
  // A worker whose primary is gone (killed) closes instead of serving on unsupervised.
  if (cluster.isWorker) process.on("disconnect", () => stop("primary gone"));
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
