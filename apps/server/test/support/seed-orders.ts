import { randomUUID } from "node:crypto";
import type { TestServer } from "./server.js";
import { call, type Merchant } from "./v1.js";

/**
 * Paid orders for suites that act on them (refunds, invoices) without going through a checkout:
 * a customer and an order written with SQL, paid by a real charge of the sandbox processor (so
 * refunds have money to give back).
 */

export interface SeededOrder {
  id: string;
  customerId: string;
  chargeId: string | null;
  invoiceNumber: string;
}

export interface SeedOrderOptions {
  /** Before discount. */
  subtotal?: number;
  discount?: number;
  tax?: number;
  currency?: string;
  status?: "pending" | "paid" | "partially_refunded" | "refunded";
  /** Pay through the sandbox (default when the total is above 0). */
  charge?: boolean;
  /** A charge made elsewhere (e.g. a Stripe payment intent), with its processor. */
  paidWith?: { processor: "sandbox" | "stripe"; chargeId: string };
  subscriptionId?: string | null;
  billingName?: string | null;
  billingAddress?: Record<string, string | null> | null;
  customerName?: string;
  customerEmail?: string;
  label?: string;
  createdAt?: Date;
}

let counter = 0;
const nextYear = new Date().getUTCFullYear() + 1;

/** A sandbox charge of `amount` for the merchant (a new processor customer, the 4242 test card). */
export async function sandboxCharge(
  server: TestServer,
  merchant: Merchant,
  amount: number,
  currency: string,
): Promise<string> {
  const token = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: "4242 4242 4242 4242",
    exp_month: 12,
    exp_year: nextYear,
    cvc: "123",
  });
  if (token.status !== 201) throw new Error(`token failed: ${token.status} ${JSON.stringify(token.body)}`);
  const customer = await server.payments<{ id: string }>("processor", "createCustomer", {
    organizationId: merchant.organizationId,
    email: "buyer@example.test",
    name: "Buyer",
    idempotencyKey: randomUUID(),
  });
  const charge = await server.payments<{ status: string; chargeId: string }>("processor", "charge", {
    organizationId: merchant.organizationId,
    amount,
    currency,
    customerId: customer.id,
    source: { confirmationTokenId: token.body.id },
    idempotencyKey: randomUUID(),
  });
  if (charge.status !== "succeeded") throw new Error(`charge ${charge.status}`);
  return charge.chargeId;
}

/** A customer of the merchant and an order of it (paid through the sandbox unless told otherwise). */
export async function seedOrder(
  server: TestServer,
  merchant: Merchant,
  opts: SeedOrderOptions = {},
): Promise<SeededOrder> {
  counter += 1;
  const subtotal = opts.subtotal ?? 10_000;
  const discount = opts.discount ?? 0;
  const tax = opts.tax ?? 0;
  const net = subtotal - discount;
  const total = net + tax;
  const currency = opts.currency ?? "usd";
  const status = opts.status ?? "paid";
  const pay = !opts.paidWith && (opts.charge ?? (status !== "pending" && total > 0));
  const chargeId =
    opts.paidWith?.chargeId ?? (pay ? await sandboxCharge(server, merchant, total, currency) : null);
  const processor = opts.paidWith?.processor ?? (chargeId ? "sandbox" : null);
  const customerId = randomUUID();
  const orderId = randomUUID();
  const invoiceNumber = `INV-${Date.now().toString(36).toUpperCase()}-${counter}`;
  const createdAt = opts.createdAt ?? new Date();
  await server.sql(
    `insert into kassa_customer (id, organization_id, email, name, billing_address, created_at)
     values ($1, $2, $3, $4, $5, $6)`,
    customerId,
    merchant.organizationId,
    opts.customerEmail ?? `buyer-${counter}-${Date.now().toString(36)}@example.test`,
    opts.customerName ?? "Jane Buyer",
    opts.billingAddress === undefined ? null : JSON.stringify(opts.billingAddress),
    createdAt,
  );
  await server.sql(
    `insert into kassa_order (id, organization_id, customer_id, subscription_id, status, billing_reason,
       subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, currency, billing_name,
       billing_address, invoice_number, processor, charge_id, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    orderId,
    merchant.organizationId,
    customerId,
    opts.subscriptionId ?? null,
    status,
    opts.subscriptionId ? "subscription_create" : "purchase",
    subtotal,
    discount,
    net,
    tax,
    total,
    currency,
    opts.billingName === undefined ? "Jane Buyer" : opts.billingName,
    opts.billingAddress === undefined
      ? JSON.stringify({
          line1: "1 Main Street",
          line2: null,
          postal_code: "10001",
          city: "New York",
          state: "US-NY",
          country: "US",
        })
      : opts.billingAddress === null
        ? null
        : JSON.stringify(opts.billingAddress),
    invoiceNumber,
    processor,
    chargeId,
    createdAt,
  );
  await server.sql(
    `insert into kassa_order_item (id, order_id, label, amount, tax_amount, position, created_at)
     values ($1, $2, $3, $4, $5, 0, $6)`,
    randomUUID(),
    orderId,
    opts.label ?? "Pro plan",
    subtotal,
    tax,
    createdAt,
  );
  return { id: orderId, customerId, chargeId, invoiceNumber };
}
