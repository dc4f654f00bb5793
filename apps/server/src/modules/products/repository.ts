import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import { markHot } from "../../db/hot-statements.js";
import type {
  BenefitTable,
  CustomFieldTable,
  FileTable,
  MeterTable,
  ProductCustomFieldTable,
  ProductPriceTable,
  ProductTable,
} from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type ProductRow = Selectable<ProductTable>;
export type PriceRow = Selectable<ProductPriceTable>;
export type ProductSortField = "created_at" | "name";

export interface ProductFilters {
  ids?: string[] | undefined;
  query?: string | undefined;
  isArchived?: boolean | undefined;
  isRecurring?: boolean | undefined;
  visibility?: string[] | undefined;
  /** Products granting any of these benefits. */
  benefitIds?: string[] | undefined;
  metadata: Record<string, string[]>;
}

export function insertProduct(db: Db, row: Insertable<ProductTable>) {
  return db.insertInto("kassa_product").values(row).execute();
}

/**
 * Reads `kassa_product_benefit` (owned by benefits) in a join: the list filters and sorts on the benefits attached (an exists subquery), which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listProducts(
  db: Db,
  organizationId: string,
  filters: ProductFilters,
  page: Page,
  sorting: Sort<ProductSortField>[],
) {
  let base = db.selectFrom("kassa_product as p").where("p.organization_id", "=", organizationId);
  if (filters.ids && filters.ids.length > 0) base = base.where("p.id", "in", filters.ids);
  if (filters.query) base = base.where(containsText("p.name", filters.query));
  if (filters.isArchived !== undefined) base = base.where("p.is_archived", "=", filters.isArchived);
  if (filters.isRecurring !== undefined)
    base = base.where("p.recurring_interval", filters.isRecurring ? "is not" : "is", null);
  if (filters.visibility && filters.visibility.length > 0)
    base = base.where("p.visibility", "in", filters.visibility);
  if (filters.benefitIds && filters.benefitIds.length > 0) {
    const benefitIds = filters.benefitIds;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom("kassa_product_benefit as pb")
          .select("pb.product_id")
          .whereRef("pb.product_id", "=", "p.id")
          .where("pb.benefit_id", "in", benefitIds),
      ),
    );
  }
  const metadata = metadataCondition("p.metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.select(PRODUCT_COLUMNS);
  for (const s of sorting) query = query.orderBy(`p.${s.field}`, s.direction);
  const pageQuery = query.select(totalOver).orderBy("p.id").limit(page.limit).offset(offsetOf(page));
  // The page first, then its parts for the page's rows only, in the same statement.
  let withParts = db.selectFrom(pageQuery.as("p")).selectAll("p").select(productParts(organizationId));
  for (const s of sorting) withParts = withParts.orderBy(`p.${s.field}`, s.direction);
  const compiled = withParts.orderBy("p.id").compile();
  // Unfiltered, the text is one per sorting: prepared from its first run on PostgreSQL (a
  // filtered list's text varies with its filters: prepared from its second, db/pg-client.ts).
  const unfiltered =
    !filters.ids?.length &&
    !filters.query &&
    filters.isArchived === undefined &&
    filters.isRecurring === undefined &&
    !filters.visibility?.length &&
    !filters.benefitIds?.length &&
    !metadata;
  if (unfiltered) markHot(compiled.sql);
  const rows = (await db.executeQuery(compiled)).rows as (ProductWithParts & { __total: string })[];
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

/** A product with its parts (see `productParts`), in one statement. */
export async function findProductWithParts(
  db: Db,
  organizationId: string,
  id: string,
): Promise<ProductWithParts | undefined> {
  const query = db
    .selectFrom("kassa_product as p")
    .select(PRODUCT_COLUMNS)
    .select(productParts(organizationId))
    .where("p.organization_id", "=", organizationId)
    .where("p.id", "=", id)
    .compile();
  // Fixed text with its columns listed: prepared once per connection on PostgreSQL.
  markHot(query.sql);
  return (await db.executeQuery(query)).rows[0] as ProductWithParts | undefined;
}

/** The product's own columns, listed (a prepared statement's result must not follow the table). */
const PRODUCT_COLUMNS = [
  "p.id",
  "p.organization_id",
  "p.name",
  "p.description",
  "p.visibility",
  "p.recurring_interval",
  "p.recurring_interval_count",
  "p.trial_interval",
  "p.trial_interval_count",
  "p.meter_interval",
  "p.meter_interval_count",
  "p.is_archived",
  "p.metadata",
  "p.created_at",
  "p.modified_at",
] as const satisfies readonly `p.${keyof ProductTable}`[];

/** The parts of these products (see `productParts`), in one statement, by product id. */
export async function partsOfProducts(
  db: Db,
  organizationId: string,
  productIds: string[],
): Promise<Map<string, ProductParts>> {
  if (productIds.length === 0) return new Map();
  const rows = (await db
    .selectFrom("kassa_product as p")
    .select("p.id")
    .select(productParts(organizationId))
    .where("p.organization_id", "=", organizationId)
    .where("p.id", "in", productIds)
    .execute()) as (ProductParts & { id: string })[];
  return new Map(rows.map((r) => [r.id, r]));
}

export function findProduct(db: Db, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  let query = db
    .selectFrom("kassa_product")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function updateProduct(db: Db, organizationId: string, id: string, patch: Updateable<ProductTable>) {
  return db
    .updateTable("kassa_product")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .execute();
}

/** The active (not archived) prices of these products, in their order. */
export function activePrices(db: Db, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_price")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("product_id", "in", productIds)
    .where("is_archived", "=", false)
    .orderBy("position")
    .orderBy("created_at")
    .execute();
}

/** Prices of the organization among `ids`, archived ones included (what a subscription was sold at). */
export function findPrices(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_price")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

export function insertPrices(db: Db, rows: Insertable<ProductPriceTable>[]) {
  if (rows.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_product_price")
    .values(rows)
    .execute()
    .then(() => undefined);
}

export function setPricePosition(db: Db, organizationId: string, id: string, position: number, now: Date) {
  return db
    .updateTable("kassa_product_price")
    .set({ position, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .execute();
}

export function archivePrices(db: Db, organizationId: string, ids: string[], now: Date) {
  if (ids.length === 0) return Promise.resolve();
  return db
    .updateTable("kassa_product_price")
    .set({ is_archived: true, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute()
    .then(() => undefined);
}

export function attachedCustomFields(db: Db, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_custom_field")
    .selectAll()
    .where("product_id", "in", productIds)
    .orderBy("order")
    .execute();
}

export async function replaceAttachedCustomFields(
  db: Db,
  productId: string,
  rows: Insertable<ProductCustomFieldTable>[],
) {
  await db.deleteFrom("kassa_product_custom_field").where("product_id", "=", productId).execute();
  if (rows.length > 0) await db.insertInto("kassa_product_custom_field").values(rows).execute();
}

/** Products of the organization among `ids` (archived ones included). */
export function findProducts(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

/** The product a price belongs to (within the organization). */
export async function productOfPrice(db: Db, organizationId: string, priceId: string) {
  const row = await db
    .selectFrom("kassa_product_price")
    .select("product_id")
    .where("organization_id", "=", organizationId)
    .where("id", "=", priceId)
    .executeTakeFirst();
  return row?.product_id;
}

/** A row as PostgreSQL writes it in JSON: timestamps become ISO text (`reviveDates` turns them back). */
type AsJson<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

export type PriceWithMeter = AsJson<PriceRow> & { meter: AsJson<Selectable<MeterTable>> | null };
export interface AttachedWithField {
  custom_field_id: string;
  order: number;
  required: boolean;
  field: AsJson<Selectable<CustomFieldTable>>;
}
export interface ProductParts {
  prices: PriceWithMeter[];
  benefits: AsJson<Selectable<BenefitTable>>[];
  medias: AsJson<Selectable<FileTable>>[];
  attached: AttachedWithField[];
}
export type ProductWithParts = ProductRow & ProductParts;

/**
 * Everything a product's answer shows beside its own row, as JSON columns of the query that reads
 * the product (`p`): its active prices in their order, each with its meter; its live benefits, its
 * live media files and its attached custom fields, each in its order. One statement for a page of
 * products instead of six (the answer's cost was its round trips: docs/benchmarks.md).
 *
 * Reads the tables of benefits (`kassa_product_benefit`, `kassa_benefit`), files
 * (`kassa_product_media`, `kassa_file`), meters (`kassa_meter`) and custom fields
 * (`kassa_custom_field`) directly, never writes them: going through each module would be a
 * statement per module. Every table is scoped to the organization (a part of another
 * organization is never shown, as the modules' own readers did).
 */
function productParts(organizationId: string) {
  return [
    sql<PriceWithMeter[]>`(select coalesce(json_agg(x order by x.position, x.created_at), '[]'::json) from (
      select pp.*, to_json(m) as meter from kassa_product_price pp
      left join kassa_meter m on m.id = pp.meter_id and m.organization_id = ${organizationId}
      where pp.organization_id = ${organizationId} and pp.product_id = p.id and pp.is_archived = false) x)`.as(
      "prices",
    ),
    sql<ProductParts["benefits"]>`(select coalesce(json_agg(b order by pb."order"), '[]'::json)
      from kassa_product_benefit pb join kassa_benefit b on b.id = pb.benefit_id
      where pb.product_id = p.id and b.organization_id = ${organizationId} and b.deleted_at is null)`.as(
      "benefits",
    ),
    sql<ProductParts["medias"]>`(select coalesce(json_agg(f order by pm."order"), '[]'::json)
      from kassa_product_media pm join kassa_file f on f.id = pm.file_id
      where pm.product_id = p.id and f.organization_id = ${organizationId} and f.deleted_at is null)`.as(
      "medias",
    ),
    sql<AttachedWithField[]>`(select coalesce(json_agg(json_build_object('custom_field_id', a.custom_field_id,
        'order', a."order", 'required', a.required, 'field', cf) order by a."order"), '[]'::json)
      from kassa_product_custom_field a
      join kassa_custom_field cf on cf.id = a.custom_field_id and cf.organization_id = ${organizationId}
      where a.product_id = p.id)`.as("attached"),
  ] as const;
}
