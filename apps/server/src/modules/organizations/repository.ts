import { sql, type Updateable } from "kysely";
import type { BetterAuthOrganizationTable, OrganizationSettingsTable } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";

/** Better Auth's organization row joined with its billing settings (defaults when none yet). */
function selectOrganization(db: Db) {
  return db
    .selectFrom("organization as o")
    .leftJoin("kassa_organization_settings as s", "s.organization_id", "o.id")
    .select([
      "o.id",
      "o.name",
      "o.slug",
      "o.logo",
      "o.createdAt as created_at",
      "s.email",
      "s.website",
      "s.socials",
      "s.details_submitted_at",
      "s.issue_funding_enabled",
      "s.usage_based_billing_enabled",
      "s.meter_cycling_enabled",
      "s.allow_multiple_subscriptions",
      "s.allow_customer_updates",
      "s.proration_behavior",
      "s.benefit_revocation_grace_period",
      "s.modified_at",
    ]);
}

export type OrganizationRow = NonNullable<Awaited<ReturnType<typeof findOrganization>>>;

export function findOrganization(db: Db, organizationId: string) {
  return selectOrganization(db).where("o.id", "=", organizationId).executeTakeFirst();
}

/** The organization a public page names by its slug (the customer portal's address). */
export function findOrganizationBySlug(db: Db, slug: string) {
  return selectOrganization(db).where("o.slug", "=", slug).executeTakeFirst();
}

/** A user's roles in an organization (comma-separated, as Better Auth stores them), if a member. */
export async function findMemberRole(db: Db, organizationId: string, userId: string) {
  const row = await db
    .selectFrom("member")
    .select("role")
    .where("organizationId", "=", organizationId)
    .where("userId", "=", userId)
    .executeTakeFirst();
  return row?.role;
}

/** The caller's organization, if it matches the filters (a caller only ever sees its own). */
export async function listOrganizations(
  db: Db,
  organizationId: string,
  filters: { slug?: string[] | undefined },
) {
  let query = selectOrganization(db).where("o.id", "=", organizationId);
  if (filters.slug && filters.slug.length > 0) query = query.where("o.slug", "in", filters.slug);
  return query.execute();
}

export function slugTakenByAnother(db: Db, organizationId: string, slug: string) {
  return db
    .selectFrom("organization")
    .select("id")
    .where("slug", "=", slug)
    .where("id", "!=", organizationId)
    .executeTakeFirst();
}

/** Name, slug and avatar live in Better Auth's row, so the account layer sees the same values. */
export async function updateAccountRow(
  db: Db,
  organizationId: string,
  patch: Pick<Updateable<BetterAuthOrganizationTable>, "name" | "slug" | "logo">,
) {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable("organization").set(patch).where("id", "=", organizationId).execute();
}

/** Creates the settings row with its defaults if missing, then applies the patch. */
export async function upsertSettings(
  db: Db,
  organizationId: string,
  patch: Omit<Updateable<OrganizationSettingsTable>, "organization_id">,
) {
  await db
    .insertInto("kassa_organization_settings")
    .values({ organization_id: organizationId, modified_at: patch.modified_at ?? null })
    .onConflict((oc) => oc.column("organization_id").doNothing())
    .execute();
  await db
    .updateTable("kassa_organization_settings")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .execute();
}

/** Locks the organization's row for the rest of the transaction (concurrent updates queue). */
export async function lockOrganization(db: Db, organizationId: string) {
  await sql`select 1 from "organization" where id = ${organizationId} for update`.execute(db);
}
