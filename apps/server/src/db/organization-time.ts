import { sql } from "kysely";

/**
 * An organization's time in SQL: `now` (the real time) plus its test clock's offset, none
 * outside the sandbox. `organizationColumn` names the row's organization (`s.organization_id`).
 * Reads `kassa_test_clock` (owned by the test-clocks module) so that one query serves every
 * organization: the renewal scheduler asks "what is due" across all of them at once.
 */
export function organizationNow(now: Date, organizationColumn: string) {
  return sql<Date>`(${now}::timestamptz + coalesce((select tc.offset_ms from kassa_test_clock tc
    where tc.organization_id = ${sql.ref(organizationColumn)}), 0) * interval '1 millisecond')`;
}
