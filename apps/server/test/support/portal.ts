import { randomUUID } from "node:crypto";
import type { TestServer } from "./server.js";

/**
 * Rows the customer portal reads, written with SQL: customers, orders and subscriptions are
 * created by checkouts (another module); these suites only need them to exist.
 */
export async function insertCustomer(
  server: Pick<TestServer, "sql">,
  organizationId: string,
  opts: { email?: string; name?: string | null; externalId?: string | null; deleted?: boolean } = {},
): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  const email = opts.email ?? `buyer-${id.slice(0, 8)}@example.com`;
  await server.sql(
    `insert into kassa_customer (id, organization_id, external_id, email, name, billing_address, metadata, created_at, deleted_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, '{"tier":"gold"}'::jsonb, now(), $7)`,
    id,
    organizationId,
    opts.externalId ?? null,
    email,
    opts.name === undefined ? "Ada Buyer" : opts.name,
    JSON.stringify({ line1: "1 Main St", city: "Paris", postal_code: "75001", country: "FR" }),
    opts.deleted ? new Date() : null,
  );
  return { id, email };
}

/** An `active` monthly subscription to the product at this price, started now. */
export async function insertSubscription(
  server: Pick<TestServer, "sql">,
  row: {
    organizationId: string;
    customerId: string;
    productId: string;
    priceId: string;
    amount?: number;
    status?: string;
    startedAt?: Date | null;
  },
): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  const end = new Date(now.getTime() + 30 * 86_400_000);
  await server.sql(
    `insert into kassa_subscription (id, organization_id, customer_id, product_id, price_ids, status, amount, currency,
       recurring_interval, current_period_start, current_period_end, started_at, metadata, created_at)
     values ($1, $2, $3, $4, $5::jsonb, $6, $7, 'usd', 'month', $8, $9, $10, '{"internal":"yes"}'::jsonb, $8)`,
    id,
    row.organizationId,
    row.customerId,
    row.productId,
    JSON.stringify([row.priceId]),
    row.status ?? "active",
    row.amount ?? 1000,
    now,
    end,
    row.startedAt === undefined ? now : row.startedAt,
  );
  return id;
}

let invoiceCounter = 0;

/** A paid order of the product with one item (and its subscription, if any). */
export async function insertOrder(
  server: Pick<TestServer, "sql">,
  row: {
    organizationId: string;
    customerId: string;
    productId: string;
    priceId: string;
    subscriptionId?: string | null;
    amount?: number;
    createdAt?: Date;
  },
): Promise<string> {
  const id = randomUUID();
  const amount = row.amount ?? 1000;
  invoiceCounter += 1;
  const created = row.createdAt ?? new Date();
  await server.sql(
    `insert into kassa_order (id, organization_id, customer_id, product_id, subscription_id, status, billing_reason,
       subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, currency, billing_name, billing_address,
       invoice_number, processor, charge_id, metadata, created_at)
     values ($1, $2, $3, $4, $5, 'paid', $6, $7, 0, $7, 0, $7, 'usd', 'Ada Buyer', $8::jsonb, $9, 'sandbox', $10,
       '{"internal":"yes"}'::jsonb, $11)`,
    id,
    row.organizationId,
    row.customerId,
    row.productId,
    row.subscriptionId ?? null,
    row.subscriptionId ? "subscription_create" : "purchase",
    amount,
    JSON.stringify({ country: "FR", city: "Paris" }),
    `INV-${Date.now().toString(36)}-${invoiceCounter}`,
    `ch_${id.slice(0, 8)}`,
    created,
  );
  await server.sql(
    `insert into kassa_order_item (id, order_id, label, amount, tax_amount, product_price_id, position, created_at)
     values ($1, $2, 'Pro', $3, 0, $4, 0, $5)`,
    randomUUID(),
    id,
    amount,
    row.priceId,
    created,
  );
  return id;
}
