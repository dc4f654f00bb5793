import type { TestServer } from "./server.js";

/**
 * Holds a job Kassa planned for later (`run_at`), found by name and one payload field: it is
 * put an hour further off, so a test can set up what the job will find without racing its
 * delay; answers its id and the delay it was planned with (seconds from its creation).
 */
export async function holdJob(server: Pick<TestServer, "sql">, name: string, field: string, value: string) {
  const [job] = await server.sql<{ id: string; delay: number }>(
    `update kassa_job set run_at = run_at + interval '1 hour'
     where name = $1 and payload->>$2 = $3 and status = 'pending'
     returning id, extract(epoch from (run_at - interval '1 hour' - created_at))::float8 as delay`,
    name,
    field,
    value,
  );
  if (!job) throw new Error(`no pending ${name} job with ${field} = ${value}`);
  return job;
}

/** Makes a held job due now and wakes the workers. */
export async function releaseJob(server: Pick<TestServer, "sql">, id: string) {
  await server.sql("update kassa_job set run_at = now() where id = $1", id);
  await server.sql("select pg_notify('kassa_jobs', '')");
}
