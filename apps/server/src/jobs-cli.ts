import { loadConfig } from "./config.js";
import { openDatabase } from "./db/database.js";
import type { JobStatus } from "./db/schema.js";
import { listJobs, retryDeadJob } from "./kit/jobs/index.js";

/**
 * `npm run jobs -- [dead|pending|running|completed] [name]`: the job queue's rows, newest first
 * (default: dead ones). `npm run jobs -- retry <id>`: a dead job back in the queue with a
 * fresh attempt budget. Uses the same DATABASE_URL / DATA_DIR as the server (PGlite: stop
 * the server first, one process owns its data dir).
 */
const [command = "dead", arg] = process.argv.slice(2);
const database = await openDatabase(loadConfig());
try {
  if (command === "retry") {
    if (!arg) throw new Error("usage: npm run jobs -- retry <job id>");
    const ok = await retryDeadJob(database.db, arg);
    console.log(ok ? `job ${arg} is pending again` : `no dead job ${arg}`);
    if (!ok) process.exitCode = 1;
  } else if (["dead", "pending", "running", "completed"].includes(command)) {
    const rows = await listJobs(database.db, { status: command as JobStatus, ...(arg ? { name: arg } : {}) });
    for (const r of rows)
      console.log(
        [
          r.id,
          r.name,
          r.status,
          `attempts=${r.attempts}`,
          r.created_at.toISOString(),
          r.last_error ?? "",
        ].join("\t"),
      );
    console.log(`${rows.length} ${command} job(s)${rows.length === 100 ? " (the newest 100)" : ""}`);
  } else {
    throw new Error("usage: npm run jobs -- [dead|pending|running|completed] [name] | retry <id>");
  }
} catch (error) {
  console.error(`jobs: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await database.close();
}
