import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Polar's `subscription_settings.benefit_revocation_grace_period`: days a past-due
    // subscription keeps its benefits (0, the default: they go at the first failed renewal).
    await sql`alter table kassa_organization_settings
      add column benefit_revocation_grace_period integer not null default 0`.execute(db);
  },
};
