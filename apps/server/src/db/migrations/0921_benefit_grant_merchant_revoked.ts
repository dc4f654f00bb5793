import { type Kysely, type Migration, sql } from "kysely";

/**
 * When a merchant revoked a grant themselves (a license key's status set to `revoked` with
 * `PATCH /v1/license-keys/{id}`): the grant is taken back, and the customer's syncs do not give
 * it again while the mark holds, though its cause (an order, a subscription) still entitles it.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_benefit_grant add column merchant_revoked_at timestamptz`.execute(db);
  },
};
