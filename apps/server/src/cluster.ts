import cluster, { type Worker } from "node:cluster";
import type { KassaConfig } from "./config.js";
import { withHugePages } from "./kit/huge-pages.js";
import type { Logger } from "./kit/logger.js";
import { prepareDatabase } from "./prepare-database.js";

/**
 * The primary of `WEB_CONCURRENCY` > 1 (PostgreSQL only; config.ts refuses it on PGlite). It
 * serves nothing itself: it migrates the database once, forks the workers (each runs main.ts,
 * which calls `startKassa` on the shared port; Node hands connections to them in turn), puts
 * back a worker that dies, and on SIGTERM/SIGINT asks every worker to close gracefully and
 * exits when they have. What several processes share, and why each part stays correct, is in
 * docs/decisions.md ("Every core").
 */

/** Restart delays: 0.5 s after a first death, doubling with every death within a minute, at most 30 s. */
const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
const CRASH_WINDOW_MS = 60_000;
/** A worker that has not exited this long after SIGTERM is killed. */
const STOP_GRACE_MS = 60_000;
/** Connections a worker holds beside its pool: the LISTEN connections of the job worker and the test clocks. */
const LISTEN_CONNECTIONS = 2;

export async function runCluster(config: KassaConfig, logger: Logger): Promise<void> {
  const count = config.webConcurrency;
  const { description, maxConnections } = await prepareDatabase(config, logger);
  if (config.database.kind === "postgres" && maxConnections !== undefined) {
    const wanted = count * (config.database.poolSize + LISTEN_CONNECTIONS);
    if (wanted > maxConnections)
      logger.warn(
        `${count} workers may open ${wanted} database connections (DATABASE_POOL_SIZE ${config.database.poolSize} + ${LISTEN_CONNECTIONS} each) but PostgreSQL allows ${maxConnections} (max_connections): lower WEB_CONCURRENCY or DATABASE_POOL_SIZE, or put PgBouncer in front (docs/scaling.md)`,
      );
  }
  logger.info(`Kassa starting ${count} worker processes (WEB_CONCURRENCY) on ${description}`);

  /** Workers alive or starting, by cluster id. */
  const workers = new Map<number, Worker>();
  const listening = new Set<number>();
  let started = false;
  let stopping = false;
  let exitCode = 0;
  const deaths: number[] = [];
  const restarts = new Set<ReturnType<typeof setTimeout>>();

  const fork = () => {
    // Workers hash the passwords: their allocator gets huge pages even when the primary was
    // started without them (kit/huge-pages.ts).
    const worker = cluster.fork({ GLIBC_TUNABLES: withHugePages(process.env.GLIBC_TUNABLES) });
    workers.set(worker.id, worker);
    return worker;
  };

  cluster.on("listening", (worker) => {
    listening.add(worker.id);
    if (!started) {
      if (listening.size < count) return;
      started = true;
      const pids = [...workers.values()].map((w) => w.process.pid).join(", ");
      logger.info(`Kassa listening on ${config.baseURL} with ${count} worker processes (pids ${pids})`);
      return;
    }
    logger.info(`worker ${worker.id} (pid ${worker.process.pid}) listening`);
  });

  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${reason}: closing ${workers.size} worker processes`);
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    for (const worker of workers.values()) worker.process.kill("SIGTERM");
    const force = setTimeout(() => {
      for (const worker of workers.values()) {
        logger.warn(`worker ${worker.id} (pid ${worker.process.pid}) did not close in time; killing it`);
        worker.process.kill("SIGKILL");
      }
    }, STOP_GRACE_MS);
    force.unref();
    if (workers.size === 0) finish();
  };

  const finish = () => {
    logger.info("Kassa stopped (all workers closed)");
    process.exit(exitCode);
  };

  cluster.on("exit", (worker, code, signal) => {
    workers.delete(worker.id);
    const wasListening = listening.delete(worker.id);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping) {
      if (code !== 0) exitCode = 1;
      if (workers.size === 0) finish();
      return;
    }
    if (!started && !wasListening) {
      // A worker that cannot start (port taken, database refused) would fail again: stop, as
      // one process does when its start fails.
      logger.error(`worker ${worker.id} (pid ${worker.process.pid}) failed to start (${how})`);
      exitCode = 1;
      stopAll("start-up failed");
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && (deaths[0] ?? now) < now - CRASH_WINDOW_MS) deaths.shift();
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (deaths.length - 1));
    logger.error(
      `worker ${worker.id} (pid ${worker.process.pid}) exited unexpectedly (${how}); starting another in ${delay} ms`,
    );
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  process.on("SIGTERM", () => stopAll("SIGTERM received"));
  process.on("SIGINT", () => stopAll("SIGINT received"));

  for (let i = 0; i < count; i++) fork();
}
