import { sql } from "kysely";
import type { Db } from "../context.js";
import { RequestValidationError, type ValidationIssue } from "./errors.js";
import { isUuid } from "./schemas.js";

/**
 * The one check of the ids a `/v1` request carries in its body: each must name a row of the
 * caller's organization (and, in a table with `deleted_at`, one that is not deleted). Every
 * module routes its references through here, so an id of another organization is refused the
 * same way everywhere: a 422 naming each bad field by its `loc`, in Polar's shape.
 *
 * The check knows tables, not modules (`kit/` imports nothing under `modules/`): each kind of
 * reference maps to its table. Rules beyond existence (an archived product, a file that is not
 * product media, a discount used up) stay with the module that owns them and run after this.
 */
const TABLES = {
  benefit: { table: "kassa_benefit", deletable: true, label: "Benefit" },
  checkout: { table: "kassa_checkout", deletable: false, label: "Checkout" },
  checkout_link: { table: "kassa_checkout_link", deletable: true, label: "Checkout link" },
  custom_field: { table: "kassa_custom_field", deletable: false, label: "Custom field" },
  customer: { table: "kassa_customer", deletable: true, label: "Customer" },
  discount: { table: "kassa_discount", deletable: true, label: "Discount" },
  file: { table: "kassa_file", deletable: true, label: "File" },
  meter: { table: "kassa_meter", deletable: false, label: "Meter" },
  order: { table: "kassa_order", deletable: false, label: "Order" },
  price: { table: "kassa_product_price", deletable: false, label: "Price" },
  product: { table: "kassa_product", deletable: false, label: "Product" },
  refund: { table: "kassa_refund", deletable: false, label: "Refund" },
  subscription: { table: "kassa_subscription", deletable: false, label: "Subscription" },
  webhook_endpoint: { table: "kassa_webhook_endpoint", deletable: false, label: "Webhook endpoint" },
} as const;

/** The kinds of row a request may name. Every table here has `id` and `organization_id` columns. */
export type ReferenceKind = keyof typeof TABLES;

export const REFERENCE_KINDS = Object.keys(TABLES) as ReferenceKind[];

/**
 * One field of a request that names rows: `id` is one id reported at `loc`; `ids` is a list
 * whose entry `i` is reported at `[...loc, i]`. A null or absent id is not a reference (an
 * optional field left out) and is skipped. `msg` is the refusal's text, by default
 * "<Kind> not found." (Polar's words differ between endpoints, so a module may give its own).
 */
export type Reference = {
  kind: ReferenceKind;
  loc: readonly (string | number)[];
  msg?: string;
} & ({ id: string | null | undefined } | { ids: readonly string[] | null | undefined });

/** The ids among `ids` that name live rows of `kind` in the organization. */
async function liveIds(
  db: Db,
  organizationId: string,
  wanted: Map<ReferenceKind, Set<string>>,
): Promise<Map<ReferenceKind, Set<string>>> {
  const parts = [...wanted].flatMap(([kind, ids]) => {
    const valid = [...ids].filter(isUuid);
    if (valid.length === 0) return [];
    const { table, deletable } = TABLES[kind];
    return [
      sql`select ${kind}::text as kind, id from ${sql.table(table)}
          where organization_id = ${organizationId} and id in (${sql.join(valid)})
          ${deletable ? sql`and deleted_at is null` : sql``}`,
    ];
  });
  const found = new Map<ReferenceKind, Set<string>>();
  if (parts.length === 0) return found;
  const { rows } = await sql<{
    kind: ReferenceKind;
    id: string;
  }>`${sql.join(parts, sql` union all `)}`.execute(db);
  for (const row of rows) found.set(row.kind, (found.get(row.kind) ?? new Set()).add(row.id));
  return found;
}

/**
 * The refusals for every reference that does not name a live row of the organization, in the
 * order given (one query for all of them). Empty when all are good. For a module that adds
 * refusals of its own before answering; otherwise use `checkReferences`.
 */
export async function referenceIssues(
  db: Db,
  organizationId: string,
  references: readonly Reference[],
): Promise<ValidationIssue[]> {
  const entries = references.flatMap((ref) => {
    const msg = ref.msg ?? `${TABLES[ref.kind].label} not found.`;
    if ("id" in ref) return ref.id == null ? [] : [{ kind: ref.kind, id: ref.id, loc: [...ref.loc], msg }];
    return (ref.ids ?? []).map((id, i) => ({ kind: ref.kind, id, loc: [...ref.loc, i], msg }));
  });
  const wanted = new Map<ReferenceKind, Set<string>>();
  for (const e of entries) wanted.set(e.kind, (wanted.get(e.kind) ?? new Set()).add(e.id));
  const found = await liveIds(db, organizationId, wanted);
  return entries
    .filter((e) => !found.get(e.kind)?.has(e.id))
    .map((e) => ({ type: "value_error", loc: e.loc, msg: e.msg, input: e.id }));
}

/**
 * Throws a `RequestValidationError` (422) naming every reference that is not a live row of the
 * caller's organization: another organization's id, a deleted row, an unknown id or a string
 * that is not a UUID are all answered alike, so nothing tells whether another organization has
 * such a row.
 */
export async function checkReferences(
  db: Db,
  organizationId: string,
  references: readonly Reference[],
): Promise<void> {
  const issues = await referenceIssues(db, organizationId, references);
  if (issues.length > 0) throw new RequestValidationError(issues);
}
