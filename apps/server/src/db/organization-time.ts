import { sql } from "kysely";

/**
 * An organization's time in SQL: its test clock's time where it has one (the sandbox), else
 * `now` (the real time). `organizationColumn` names the row's organization (`s.organization_id`).
 * Reads `kassa_test_clock` (owned by the test-clocks module) so that one query serves every
 * organization: the renewal scheduler asks "what is due" across all of them at once.
 */
export function organizationNow(now: Date, organizationColumn: string) {
  return sql<Date>`coalesce((select tc.frozen_at from kassa_test_clock tc
    where tc.organization_id = ${sql.ref(organizationColumn)}), ${now}::timestamptz)`;
}
