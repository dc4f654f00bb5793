import type { ColumnType, Generated } from "kysely";

/**
 * Kassa's own tables. Better Auth's tables (user, session, account, verification,
 * organization, member, invitation, team, teamMember, apikey, rateLimit) are created by
 * Better Auth's migrator and read through Better Auth's API, not through this type.
 */
export interface MailTable {
  id: Generated<string>;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_error: string | null;
}

export type JobStatus = "pending" | "running" | "completed" | "dead";

/** The durable job queue (kit/jobs). */
export interface JobTable {
  id: Generated<string>;
  name: string;
  payload: ColumnType<unknown, string, string>;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  run_at: Date | null;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Date | null;
}

export interface KassaDatabase {
  kassa_mail: MailTable;
  kassa_job: JobTable;
}
