import { isUuid } from "../../kit/api/schemas.js";
import { systemClock } from "../../kit/clock.js";
import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import type { FilesEnv } from "../files/index.js";
import { findOrder, markInvoiceGenerated, orderWire } from "../orders/index.js";
import { type DocumentKind, isPaid } from "./document.js";
import { InvoiceDoesNotExist, MissingInvoiceBillingDetails, NotPaidOrder, OrderNotFound } from "./errors.js";

export interface InvoicesEnv {
  signer: FilesEnv["signer"];
  baseURL: string;
  /** How long a document URL stays valid. */
  ttlSeconds: number;
}

/** One hour, like Polar's presigned invoice URLs. */
export const DOCUMENT_URL_TTL_SECONDS = 3600;

/**
 * A signed, expiring URL of an order's invoice or receipt. The signature binds the kind, the
 * order and the expiry; the format (`.pdf` or `.html`) and the paper are free to change.
 */
export function documentUrl(
  env: InvoicesEnv,
  kind: DocumentKind,
  orderId: string,
  now: Date,
  format: "pdf" | "html" = "pdf",
) {
  const expires = Math.floor(now.getTime() / 1000) + env.ttlSeconds;
  const signature = env.signer.sign(kind, orderId, 0, expires);
  return `${env.baseURL}/documents/orders/${orderId}/${kind}.${format}?expires=${expires}&signature=${signature}`;
}

/** The caller's order: of its organization, and the customer's own when a customer asks. */
async function orderFor(ctx: Ctx, id: string) {
  const customerId = ctx.actor.kind === "customer" ? ctx.actor.customerId : undefined;
  const order = isUuid(id) ? await findOrder(ctx.db, ctx.organizationId, id, { customerId }) : undefined;
  if (!order) throw new OrderNotFound();
  return order;
}

/**
 * `POST /v1/orders/{id}/invoice`: the invoice of a paid order with a billing name and address
 * exists from now on (`is_invoice_generated`, `order.updated` the first time). Kassa renders it
 * on request, so it is ready at once and always shows the order's current refunds.
 */
export async function generateInvoice({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  const order = await orderFor(ctx, input.id);
  if (!isPaid(order)) throw new NotPaidOrder(order.id);
  if (!order.billing_name || !order.billing_address) throw new MissingInvoiceBillingDetails();
  if (order.invoice_generated_at) return;
  await inTransaction(ctx, async (trx) => {
    const marked = await markInvoiceGenerated(trx, ctx.organizationId, order.id, ctx.clock.now());
    if (!marked) return; // generated meanwhile by a parallel call
    const [wire] = await orderWire(trx, ctx.organizationId, [marked]);
    if (wire) await emit(ctx, trx, "order.updated", wire);
  });
}

/** `GET /v1/orders/{id}/invoice`: Polar's `OrderInvoice`, a URL of the PDF (404 until generated). */
export async function getInvoice({ ctx, env, input }: { ctx: Ctx; env: InvoicesEnv; input: { id: string } }) {
  const order = await orderFor(ctx, input.id);
  if (!order.invoice_generated_at) throw new InvoiceDoesNotExist(order.id);
  return { url: documentUrl(env, "invoice", order.id, systemClock.now()) };
}

/** `GET /v1/orders/{id}/receipt`: Polar's `OrderReceipt`, a URL of the receipt of a paid order. */
export async function getReceipt({ ctx, env, input }: { ctx: Ctx; env: InvoicesEnv; input: { id: string } }) {
  const order = await orderFor(ctx, input.id);
  if (!isPaid(order)) throw new NotPaidOrder(order.id);
  return { url: documentUrl(env, "receipt", order.id, systemClock.now()) };
}
