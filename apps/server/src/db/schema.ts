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

/** A merchant's webhook endpoint (modules/webhooks). */
export interface WebhookEndpointTable {
  id: Generated<string>;
  organization_id: string;
  url: string;
  name: string | null;
  format: string;
  events: ColumnType<string[], string, string>;
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  modified_at: Date | null;
}

export interface WebhookEventTable {
  id: Generated<string>;
  organization_id: string;
  type: string;
  payload: string;
  created_at: Date;
}

export type WebhookSendStatus = "pending" | "succeeded" | "failed" | "skipped";

export interface WebhookSendTable {
  id: Generated<string>;
  organization_id: string;
  event_id: string;
  endpoint_id: string;
  status: ColumnType<WebhookSendStatus, WebhookSendStatus | undefined, WebhookSendStatus>;
  last_http_code: number | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface WebhookDeliveryTable {
  id: Generated<string>;
  organization_id: string;
  send_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  succeeded: boolean;
  http_code: number | null;
  request_headers: ColumnType<Record<string, string>, string, string>;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: Date;
}

export interface KassaDatabase {
  kassa_mail: MailTable;
  kassa_job: JobTable;
  kassa_webhook_endpoint: WebhookEndpointTable;
  kassa_webhook_event: WebhookEventTable;
  kassa_webhook_send: WebhookSendTable;
  kassa_webhook_delivery: WebhookDeliveryTable;
}
