// Runs on PGlite only: reads the source files; no database at all.
/**
 * One owner per table (docs/architecture.md, "Tables and their owners"): each table is written
 * only by the code that owns it (a module's folder, or a file of the toolkit), and read by
 * others only where listed below with the reason. Other modules call the owner through its
 * `index.ts`. Pure: it reads the source and starts no server.
 *
 * What counts as touching a table: Kysely's `selectFrom`, the joins, `insertInto`,
 * `updateTable`, `deleteFrom`, `mergeInto` with the table's name, and raw SQL in `sql` templates
 * (`insert into`, `update`, `delete from` write; `from`, `join` read).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

/** Each table and the code that owns it (a folder or file under src/). */
const OWNERS: Record<string, string> = {
  kassa_benefit: "modules/benefits",
  kassa_benefit_grant: "modules/benefit-grants",
  kassa_product_benefit: "modules/benefits",
  kassa_checkout: "modules/checkouts",
  kassa_checkout_link: "modules/checkout-links",
  kassa_checkout_link_product: "modules/checkout-links",
  kassa_custom_field: "modules/custom-fields",
  kassa_customer: "modules/customers",
  kassa_customer_oauth_account: "modules/oauth-accounts",
  kassa_oauth_connect_state: "modules/oauth-accounts",
  kassa_customer_session: "modules/customer-sessions",
  kassa_customer_session_code: "modules/customer-sessions",
  kassa_discount: "modules/discounts",
  kassa_discount_product: "modules/discounts",
  kassa_discount_redemption: "modules/discounts",
  kassa_file: "modules/files",
  kassa_product_media: "modules/files",
  kassa_meter: "modules/meters",
  kassa_event: "modules/events",
  kassa_event_key: "modules/events",
  kassa_event_orphan: "modules/events",
  kassa_event_state_notice: "modules/events",
  kassa_event_default: "modules/events",
  kassa_customer_meter: "modules/customer-meters",
  kassa_customer_meter_value: "modules/customer-meters",
  kassa_meter_ledger: "modules/customer-meters",
  kassa_order: "modules/orders",
  kassa_order_item: "modules/orders",
  kassa_invoice_counter: "modules/orders",
  kassa_organization_access_token: "modules/organization-access-tokens",
  kassa_organization_settings: "modules/organizations",
  kassa_processor_event: "modules/payments",
  kassa_sandbox_charge: "modules/payments/sandbox",
  kassa_sandbox_confirmation_token: "modules/payments/sandbox",
  kassa_sandbox_customer: "modules/payments/sandbox",
  kassa_sandbox_idempotency: "modules/payments/sandbox",
  kassa_sandbox_payment_method: "modules/payments/sandbox",
  kassa_sandbox_refund: "modules/payments/sandbox",
  kassa_product: "modules/products",
  // Written only by triggers (migration 0897_catalog_version); read by the catalog cache.
  kassa_catalog_version: "modules/products",
  kassa_product_price: "modules/products",
  // Written only by triggers (migration 0900_session_epoch); read by the session cookie's reader.
  kassa_session_epoch: "auth",
  kassa_product_custom_field: "modules/products",
  kassa_refund: "modules/refunds",
  kassa_license_key: "modules/license-keys",
  kassa_license_key_activation: "modules/license-keys",
  kassa_license_signing_key: "modules/license-keys",
  kassa_subscription: "modules/subscriptions",
  kassa_payment_method_detach: "modules/subscriptions",
  kassa_tax_rate: "modules/tax",
  kassa_test_clock: "modules/test-clocks",
  kassa_billing_entry: "modules/subscription-lifecycle",
  kassa_webhook_endpoint: "modules/webhooks",
  kassa_webhook_event: "modules/webhooks",
  kassa_webhook_send: "modules/webhooks",
  kassa_webhook_delivery: "modules/webhooks",
  kassa_job: "kit/jobs",
  kassa_rate_limit: "kit/rate-limit.ts",
  kassa_mail: "mail",
  kassa_idempotency_key: "v1/idempotency.ts",
  // Better Auth's tables: written by Better Auth (auth/), and organizations' PATCH renames one.
  organization: "modules/organizations",
};

/** Better Auth's tables anyone may read (the account layer under every module). */
const BETTER_AUTH = new Set(["organization", "member", "user", "session", "account", "apikey", "team"]);

/**
 * Reads of another owner's table, each with its reason: joins and subqueries a list filters or
 * sorts on (one query instead of one per row, or a filter after paging), and one read that
 * calling the owner would make an import cycle. A new foreign read must be added here, or go
 * through the owner's index.ts.
 */
const FOREIGN_READS: Record<string, string> = {
  "modules/orders/repository.ts kassa_customer":
    "listOrders filters and sorts on the customer's columns; the CSV export writes its e-mail and name",
  "modules/orders/repository.ts kassa_product":
    "listOrders filters on the billing type, sorts on the name; the CSV export writes the name",
  "modules/orders/repository.ts kassa_discount": "listOrders sorts on the discount's name",
  "modules/orders/repository.ts kassa_subscription":
    "orderToCharge: a renewal's charge reads the order with its subscription's saved card in one statement",
  "modules/subscriptions/repository.ts kassa_customer":
    "listSubscriptions filters and sorts on the customer; the CSV export writes its e-mail, name, country",
  "modules/subscriptions/repository.ts kassa_product": "listSubscriptions filters and sorts on the product",
  "modules/subscriptions/repository.ts kassa_discount":
    "listSubscriptions sorts on the discount's name; the CSV export writes its code or name",
  "modules/refunds/repository.ts kassa_customer": "listRefunds filters on the customer's external id",
  "modules/products/repository.ts kassa_product_benefit":
    "listProducts filters on the benefits attached; a product's answer reads its benefits in the same statement",
  "modules/products/repository.ts kassa_benefit":
    "a product's answer: its benefits, in the product's statement",
  "modules/products/repository.ts kassa_product_media":
    "a product's answer: its media, in the product's statement",
  "modules/products/repository.ts kassa_file":
    "a product's answer: its media files, in the product's statement",
  "modules/products/repository.ts kassa_meter":
    "a product's answer: each metered price's meter, in the same statement",
  "modules/products/repository.ts kassa_custom_field":
    "a product's answer: its attached custom fields, in the product's statement",
  "modules/license-keys/repository.ts kassa_customer":
    "a validation counts and answers the key with its customer in one statement",
  "modules/customer-portal/repository.ts kassa_order": "the portal's order list, filtered on the product",
  "modules/customer-portal/repository.ts kassa_product": "the portal's lists filter and sort on the product",
  "modules/customer-portal/repository.ts kassa_subscription":
    "the portal's subscription list, on the product",
  "modules/customer-sessions/repository.ts kassa_customer":
    "authentication's token lookup: one indexed query on every portal request",
  "db/organization-time.ts kassa_test_clock":
    "an organization's time inside the scheduler's queries: one query for every organization's due work",
  "modules/customers/repository.ts kassa_benefit_grant":
    "the customer's state; benefit-grants imports customers, so calling it back would be a cycle",
  "modules/customers/repository.ts kassa_benefit": "the customer's state names each granted benefit's type",
  "modules/benefit-grants/repository.ts kassa_subscription":
    "entitlements: one query over a customer's subscriptions, orders and refunds, under the grant lock",
  "modules/benefit-grants/repository.ts kassa_order": "entitlements: a customer's paid one-time orders",
  "modules/benefit-grants/repository.ts kassa_refund":
    "entitlements: refunds that revoke an order's benefits",
  "modules/benefit-grants/repository.ts kassa_product_benefit":
    "entitlements: the benefits of those products",
  "modules/benefit-grants/repository.ts kassa_benefit":
    "entitlements skip deleted benefits; the grant lists filter on the benefit's type",
  "modules/benefit-grants/repository.ts kassa_organization_settings":
    "entitlements: the organization's grace period for past-due subscriptions, inside the one query",
  "modules/benefit-grants/repository.ts kassa_customer":
    "entitlements skip deleted customers; the grant list filters on the external id",
  "modules/events/repository.ts kassa_customer":
    "ingest checks the batch's customers and resolves external ids in one query; the list resolves them in a join",
  "modules/meters/repository.ts kassa_event": "a meter's quantities aggregate the events in SQL",
  "modules/meters/repository.ts kassa_customer": "quantities filter on customers' external ids",
  "modules/customer-meters/apply.ts kassa_event":
    "running totals fold the events into a balance in one statement",
  "modules/customer-meters/repository.ts kassa_event_orphan":
    "a balance read and a check ask, in their one statement, whether the customer has events waiting for it",
  "modules/customer-meters/repository.ts kassa_customer":
    "claims, the list's external-id filter, the rows for the wire and the check's lookup; customers imports this module (the state's meters): a cycle",
  "modules/customer-meters/repository.ts kassa_meter":
    "the check reads the customer, the meter's cap and aggregation and the balance in one prepared statement",
  "modules/customer-meters/repository.ts kassa_product_price":
    "the customer state's subscription meters; products imports customers, which imports this module: a cycle",
  "modules/metrics/repository.ts kassa_order":
    "metrics (owns no table): revenue and orders per period aggregated in SQL over the paid orders",
  "modules/metrics/repository.ts kassa_subscription":
    "metrics: active subscriptions, MRR, cancellations and churn aggregated in SQL; orders join their subscription's start",
  "modules/metrics/repository.ts kassa_checkout": "metrics: checkouts and their conversion per period in SQL",
  "modules/metrics/repository.ts kassa_product": "metrics: the checkouts' billing-type filter",
  "modules/customers/repository.ts kassa_subscription":
    "the customer's state; subscriptions imports customers, so calling it back would be a cycle",
};

type Touch = { file: string; table: string; write: boolean };

const KYSELY =
  /\.(selectFrom|innerJoin|leftJoin|rightJoin|fullJoin|insertInto|updateTable|deleteFrom|mergeInto)\(\s*["'`]([A-Za-z_]+)/g;
const KYSELY_WRITES = new Set(["insertInto", "updateTable", "deleteFrom", "mergeInto"]);
const TEMPLATE = /\bsql(?:<[^`]*?>)?`([^`]*)`/g;
const RAW_WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_]+)"?/gi;
const RAW_READ = /\b(?:from|join)\s+"?([A-Za-z_]+)"?/gi;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function touches(file: string, text: string): Touch[] {
  const found: Touch[] = [];
  for (const m of text.matchAll(KYSELY)) found.push({ file, table: m[2]!, write: KYSELY_WRITES.has(m[1]!) });
  for (const t of text.matchAll(TEMPLATE)) {
    const body = t[1]!;
    for (const m of body.matchAll(RAW_WRITE)) found.push({ file, table: m[1]!, write: true });
    for (const m of body.matchAll(RAW_READ)) found.push({ file, table: m[1]!, write: false });
  }
  return found.filter((f) => f.table.startsWith("kassa_") || BETTER_AUTH.has(f.table));
}

/** Every table touch in src/, migrations and the schema's types aside (they define the tables). */
function scan(): Touch[] {
  return sourceFiles(SRC)
    .map((full) => path.relative(SRC, full).split(path.sep).join("/"))
    .filter((file) => !file.startsWith("db/migrations") && file !== "db/schema.ts")
    .flatMap((file) => touches(file, readFileSync(path.join(SRC, file), "utf8")));
}

const owns = (owner: string, file: string) => file === owner || file.startsWith(`${owner}/`);

describe("one owner per table", () => {
  const all = scan();

  it("finds the tables (the scan is not blind)", () => {
    const tables = new Set(all.map((t) => t.table));
    for (const table of ["kassa_checkout", "kassa_discount_redemption", "kassa_order", "kassa_job"])
      expect(tables).toContain(table);
    expect(all.filter((t) => t.write).length).toBeGreaterThan(50);
  });

  it("every table of the schema has an owner", () => {
    const schema = readFileSync(path.join(SRC, "db/schema.ts"), "utf8");
    const body = schema.slice(schema.indexOf("export interface KassaDatabase"));
    const tables = [...body.matchAll(/^\s+(kassa_[a-z_]+):/gm)].map((m) => m[1]!);
    expect(tables.length).toBeGreaterThan(30);
    expect(tables.filter((t) => !(t in OWNERS))).toEqual([]);
    const touched = all.filter((t) => t.table.startsWith("kassa_")).map((t) => t.table);
    expect([...new Set(touched)].filter((t) => !(t in OWNERS))).toEqual([]);
  });

  it("a table is written only by its owner", () => {
    const foreign = all
      .filter((t) => t.write)
      .filter((t) => {
        const owner = OWNERS[t.table];
        if (BETTER_AUTH.has(t.table)) return !owns("auth", t.file) && !(owner && owns(owner, t.file));
        return !owner || !owns(owner, t.file);
      })
      .map((t) => `${t.file} writes ${t.table} (owner: ${OWNERS[t.table] ?? "none"})`);
    expect([...new Set(foreign)]).toEqual([]);
  });

  it("a table is read outside its owner only where listed, with the reason", () => {
    const reads = all.filter((t) => !t.write && !BETTER_AUTH.has(t.table));
    const foreign = new Set(
      reads.filter((t) => !owns(OWNERS[t.table] ?? "", t.file)).map((t) => `${t.file} ${t.table}`),
    );
    expect([...foreign].filter((key) => !(key in FOREIGN_READS))).toEqual([]);
    // A listed read that is gone is taken off the list, so it cannot come back silently.
    expect(Object.keys(FOREIGN_READS).filter((key) => !foreign.has(key))).toEqual([]);
  });
});
