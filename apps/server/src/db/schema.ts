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

export interface KassaDatabase {
  kassa_mail: MailTable;
}
