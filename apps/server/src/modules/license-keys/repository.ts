import { CompiledQuery, type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { pageWithTotal, totalOver } from "../../db/filters.js";
import { markHot } from "../../db/hot-statements.js";
import type {
  CustomerTable,
  LicenseKeyActivationTable,
  LicenseKeyTable,
  LicenseSigningKeyTable,
} from "../../db/schema.js";
import { offsetOf, type Page } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type LicenseKeyRow = Selectable<LicenseKeyTable>;
export type ActivationRow = Selectable<LicenseKeyActivationTable>;
export type SigningKeyRow = Selectable<LicenseSigningKeyTable>;

export function insertLicenseKey(db: Db, row: Insertable<LicenseKeyTable>) {
  return db.insertInto("kassa_license_key").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findLicenseKey(
  db: Db,
  organizationId: string,
  id: string,
  opts: { forUpdate?: boolean; customerId?: string } = {},
) {
  let q = db
    .selectFrom("kassa_license_key")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (opts.customerId !== undefined) q = q.where("customer_id", "=", opts.customerId);
  return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** The key a client presents: exact and case-sensitive, within the organization it names. */
export function findByKey(db: Db, organizationId: string, key: string, opts: { forUpdate?: boolean } = {}) {
  const q = db
    .selectFrom("kassa_license_key")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("key", "=", key);
  return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

export function updateLicenseKey(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<LicenseKeyTable>,
) {
  return db
    .updateTable("kassa_license_key")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A successful validation, in one statement that re-checks what could have changed since the
 * key was read (status, expiry, usage left): no row back means a concurrent change won, and
 * the caller checks again under the row lock.
 */
export function markValidated(db: Db, id: string, increment: number, now: Date) {
  let q = db
    .updateTable("kassa_license_key")
    .set((eb) => ({
      validations: eb("validations", "+", 1),
      usage: eb("usage", "+", increment),
      last_validated_at: now,
      modified_at: now,
    }))
    .where("id", "=", id)
    .where("status", "=", "granted")
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
  // As Polar: the usage limit is checked only when usage is asked for.
  if (increment > 0)
    q = q.where((eb) =>
      eb.or([eb("limit_usage", "is", null), eb(eb("usage", "+", increment), "<=", eb.ref("limit_usage"))]),
    );
  return q.returningAll().executeTakeFirst();
}

/** A customer row as PostgreSQL writes it in JSON: its timestamps are ISO text. */
export type CustomerJson = Omit<Selectable<CustomerTable>, "created_at" | "modified_at" | "deleted_at"> & {
  created_at: string;
  modified_at: string | null;
  deleted_at: string | null;
};

/**
 * A validation that passes every check, counted and answered in one statement: the key by its
 * text within the organization, the checks of `markValidated` and the benefit and customer the
 * caller names as conditions of the update, the key's customer as JSON beside the counted row.
 * Nothing when any check fails (or there is no such key): the caller then reads and checks the
 * key to answer why. Reads `kassa_customer` (customers' table, never written here): the answer
 * names the key's customer, and a second statement per validation was half its cost.
 */
export function validateInOneStatement(
  db: Db,
  organizationId: string,
  input: { key: string; increment: number; benefitId?: string | undefined; customerId?: string | undefined },
  now: Date,
) {
  let q = db
    .updateTable("kassa_license_key as k")
    .set((eb) => ({
      validations: eb("k.validations", "+", 1),
      usage: eb("k.usage", "+", input.increment),
      last_validated_at: now,
      modified_at: now,
    }))
    .where("k.organization_id", "=", organizationId)
    .where("k.key", "=", input.key)
    .where("k.status", "=", "granted")
    .where((eb) => eb.or([eb("k.expires_at", "is", null), eb("k.expires_at", ">", now)]));
  if (input.increment > 0) {
    const increment = input.increment;
    q = q.where((eb) =>
      eb.or([
        eb("k.limit_usage", "is", null),
        eb(eb("k.usage", "+", increment), "<=", eb.ref("k.limit_usage")),
      ]),
    );
  }
  if (input.benefitId !== undefined) q = q.where("k.benefit_id", "=", input.benefitId);
  if (input.customerId !== undefined) q = q.where("k.customer_id", "=", input.customerId);
  return q
    .returningAll("k")
    .returning(
      sql<CustomerJson | null>`(select to_json(c) from kassa_customer c
        where c.id = k.customer_id and c.organization_id = k.organization_id)`.as("customer"),
    )
    .executeTakeFirst();
}

/** The key's own columns, listed (a prepared statement's result must not follow the table). */
const KEY_COLUMNS = [
  "k.id",
  "k.organization_id",
  "k.customer_id",
  "k.benefit_id",
  "k.key",
  "k.status",
  "k.limit_activations",
  "k.usage",
  "k.limit_usage",
  "k.validations",
  "k.last_validated_at",
  "k.expires_at",
  "k.signed",
  "k.created_at",
  "k.modified_at",
] as const;

/**
 * The key a validation presents, by its text within the organization, and its customer as JSON
 * beside it: one indexed read (`kassa_license_key_org_key`), fixed text, prepared once per
 * connection on PostgreSQL. Reads `kassa_customer` (customers' table, never written here): the
 * answer names the key's customer. The checks run on the row in the caller.
 */
export async function findForValidation(db: Db, organizationId: string, key: string) {
  // Built and compiled once (a profile of the 1,000-key bench put 5% of the process in Kysely
  // building this one query); its parameters are the organization, then the key.
  if (validationSql === undefined) {
    validationSql = db
      .selectFrom("kassa_license_key as k")
      .select(KEY_COLUMNS)
      .select(
        sql<CustomerJson | null>`(select to_json(c) from kassa_customer c
          where c.id = k.customer_id and c.organization_id = k.organization_id)`.as("customer"),
      )
      .where("k.organization_id", "=", "")
      .where("k.key", "=", "")
      .compile().sql;
    markHot(validationSql);
  }
  const result = await db.executeQuery<LicenseKeyRow & { customer: CustomerJson | null }>(
    CompiledQuery.raw(validationSql, [organizationId, key]),
  );
  return result.rows[0];
}

let validationSql: string | undefined;

export interface LicenseKeyFilters {
  benefitIds?: string[] | undefined;
  statuses?: string[] | undefined;
  customerId?: string | undefined;
}

/** A page of the organization's keys (or one customer's), oldest first as Polar lists them. */
export async function listLicenseKeys(
  db: Db,
  organizationId: string,
  filters: LicenseKeyFilters,
  page: Page,
) {
  let base = db.selectFrom("kassa_license_key").where("organization_id", "=", organizationId);
  if (filters.customerId !== undefined) base = base.where("customer_id", "=", filters.customerId);
  if (filters.benefitIds !== undefined)
    base =
      filters.benefitIds.length > 0
        ? base.where("benefit_id", "in", filters.benefitIds)
        : base.where(sql<boolean>`false`);
  if (filters.statuses && filters.statuses.length > 0) base = base.where("status", "in", filters.statuses);
  const rows = await base
    .selectAll()
    .select(totalOver)
    .orderBy("created_at", "asc")
    .orderBy("id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

/** The live (not deactivated) activations of a key, oldest first. */
export function listActivations(db: Db, licenseKeyId: string) {
  return db
    .selectFrom("kassa_license_key_activation")
    .selectAll()
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function findActivation(db: Db, licenseKeyId: string, activationId: string) {
  return db
    .selectFrom("kassa_license_key_activation")
    .selectAll()
    .where("license_key_id", "=", licenseKeyId)
    .where("id", "=", activationId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function countActivations(db: Db, licenseKeyId: string): Promise<number> {
  const row = await db
    .selectFrom("kassa_license_key_activation")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertActivation(db: Db, row: Insertable<LicenseKeyActivationTable>) {
  return db.insertInto("kassa_license_key_activation").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Deactivation is a soft delete (Polar's): the row stays, it no longer counts. */
export function deleteActivation(db: Db, licenseKeyId: string, activationId: string, now: Date) {
  return db
    .updateTable("kassa_license_key_activation")
    .set({ deleted_at: now, modified_at: now })
    .where("license_key_id", "=", licenseKeyId)
    .where("id", "=", activationId)
    .where("deleted_at", "is", null)
    .returning("id")
    .executeTakeFirst();
}

export function findSigningKey(db: Db, organizationId: string) {
  return db
    .selectFrom("kassa_license_signing_key")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .executeTakeFirst();
}

export async function insertSigningKeyIfAbsent(db: Db, row: Insertable<LicenseSigningKeyTable>) {
  await db
    .insertInto("kassa_license_signing_key")
    .values(row)
    .onConflict((oc) => oc.column("organization_id").doNothing())
    .execute();
}
