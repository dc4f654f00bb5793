import type { Kysely } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { type Clocks, systemClock } from "../../kit/clock.js";
import type { EventSink } from "../../kit/context.js";
import { defineJob, enqueue, enqueueWithEvents } from "../../kit/jobs/index.js";
import { formatMoney } from "../../kit/money.js";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import { type GrantRow, grantsOfCause } from "../benefit-grants/index.js";
import { type BenefitWire, benefitsByProduct } from "../benefits/index.js";
import { findCustomer } from "../customers/index.js";
import type { UrlSigner } from "../files/index.js";
import { documentUrl } from "../invoices/index.js";
import { findLicenseKey } from "../license-keys/index.js";
import { findOrder } from "../orders/index.js";
import { findOrganization } from "../organizations/index.js";
import { findProducts, productWiresOnce } from "../products/index.js";
import { findSubscription } from "../subscriptions/index.js";

export const CONFIRMATION_JOB = "orders.confirmation-mail";

/** How long the mail's receipt and invoice links work (the portal lists them all, always). */
const DOCUMENT_LINK_TTL_SECONDS = 30 * 24 * 3600;
/** The grants are made by their own job: the mail waits for them, a second at a time, this often. */
const GRANT_WAITS = 15;

/**
 * What the mail says of its order, as the `order.paid` event that queued it carried it (the
 * transaction that paid the order has it all in hand): the job then reads only the customer and
 * the organization, and the benefits when the product has some. Absent (a job queued before
 * this existed), the job reads the order, its product and its subscription.
 */
const Known = z.object({
  customerId: z.string(),
  productId: z.string().nullable(),
  productName: z.string().nullable(),
  totalAmount: z.number().int(),
  currency: z.string(),
  invoiceNumber: z.string(),
  subscriptionId: z.string().nullable(),
  /** The date the subscription renews on (`YYYY-MM-DD`), null when none or canceled. */
  renewsOn: z.string().nullable(),
  /** Whether the product had live benefits when the order was paid. */
  hasBenefits: z.boolean(),
});
type Known = z.output<typeof Known>;

const Payload = z.object({
  organizationId: z.string(),
  orderId: z.string(),
  wait: z.number().int().default(0),
  known: Known.optional(),
});

/** The fields of the `order.paid` event's order (Polar's Order) that the mail uses. */
const PaidOrder = z.object({
  id: z.string(),
  customer_id: z.string(),
  product_id: z.string().nullable(),
  product: z.object({ name: z.string() }).nullable(),
  total_amount: z.number().int(),
  currency: z.string(),
  invoice_number: z.string(),
  subscription_id: z.string().nullable(),
  subscription: z.object({ status: z.string(), current_period_end: z.string() }).nullable(),
});

export interface OrderMailDeps {
  mailer: Mailer;
  signer: UrlSigner;
  baseURL: string;
  clocks: Clocks;
}

/**
 * Mails the buyer of a checkout's order (`purchase`, `subscription_create`) their receipt,
 * what the purchase grants (the merchant's note, the license key, the files waiting in the
 * portal), when a subscription renews, and the links to the invoice and the customer portal.
 * Queued in the transaction that paid the order; it waits (up to 15 s) for the grant engine
 * to make the grants, then says what is there.
 */
export function orderMailJobs(deps: OrderMailDeps) {
  return [
    defineJob({
      name: CONFIRMATION_JOB,
      payload: Payload,
      maxAttempts: 5,
      handler: async (payload, job) => {
        const sent = await sendConfirmation(deps, job.db, payload);
        if (sent === "waiting")
          await enqueue(job.db, {
            name: CONFIRMATION_JOB,
            payload: { ...payload, wait: payload.wait + 1 },
            runAt: new Date(job.clock.now().getTime() + 1000),
          });
      },
    }),
  ];
}

async function sendConfirmation(
  deps: OrderMailDeps,
  db: Kysely<KassaDatabase>,
  payload: z.output<typeof Payload>,
): Promise<"sent" | "waiting" | "nobody"> {
  const { organizationId, orderId } = payload;
  const order = payload.known ?? (await readKnown(db, organizationId, orderId));
  if (!order) return "nobody";
  const [customer, organization] = await Promise.all([
    findCustomer(db, organizationId, order.customerId),
    findOrganization(db, organizationId),
  ]);
  if (!customer?.email || customer.deleted_at) return "nobody";
  const benefits =
    order.productId && order.hasBenefits
      ? ((await benefitsByProduct(db, organizationId, [order.productId])).get(order.productId) ?? [])
      : [];
  // A product without benefits has no grants to wait for or to name.
  const grants =
    benefits.length === 0
      ? []
      : await grantsOfCause(db, organizationId, customer.id, {
          orderId: order.subscriptionId ? null : orderId,
          subscriptionId: order.subscriptionId,
        });
  const settled = (b: BenefitWire) =>
    grants.some((g) => g.benefit_id === b.id && (g.granted_at !== null || g.error !== null));
  if (!benefits.every(settled) && payload.wait < GRANT_WAITS) return "waiting";

  // The links expire by the real time, which the document routes check them against, not by a
  // test clock that may stand months ahead (the link would work for months) or behind.
  const now = systemClock.now();
  const env = { signer: deps.signer, baseURL: deps.baseURL, ttlSeconds: DOCUMENT_LINK_TTL_SECONDS };
  const lines = await Promise.all(
    benefits.map((b) =>
      benefitLine(
        db,
        organizationId,
        customer.id,
        b,
        grants.find((g) => g.benefit_id === b.id),
      ),
    ),
  );
  await deps.mailer.send(
    mailTemplates.orderConfirmation({
      to: customer.email,
      name: customer.name,
      organizationName: organization?.name ?? "the seller",
      productName: order.productName ?? "your purchase",
      amount: formatMoney(order.totalAmount, order.currency),
      invoiceNumber: order.invoiceNumber,
      renewsOn: order.renewsOn,
      benefits: lines,
      receiptUrl: documentUrl(env, "receipt", orderId, now, "html"),
      invoiceUrl: documentUrl(env, "invoice", orderId, now, "html"),
      portalUrl: `${deps.baseURL}/portal/${encodeURIComponent(organization?.slug ?? "")}`,
    }),
  );
  return "sent";
}

/** The date a subscription renews on (`YYYY-MM-DD` of its period's end), null once canceled. */
function renewalDate(status: string, currentPeriodEnd: string): string | null {
  return status === "canceled" ? null : currentPeriodEnd.slice(0, 10);
}

/** What the mail says of the order, read (a job queued without `known`). */
async function readKnown(
  db: Kysely<KassaDatabase>,
  organizationId: string,
  orderId: string,
): Promise<Known | undefined> {
  const order = await findOrder(db, organizationId, orderId);
  if (!order) return undefined;
  const [[product], sub] = await Promise.all([
    order.product_id ? findProducts(db, organizationId, [order.product_id]) : Promise.resolve([]),
    order.subscription_id
      ? findSubscription(db, organizationId, order.subscription_id)
      : Promise.resolve(undefined),
  ]);
  return {
    customerId: order.customer_id,
    productId: order.product_id,
    productName: product?.name ?? null,
    totalAmount: order.total_amount,
    currency: order.currency,
    invoiceNumber: order.invoice_number,
    subscriptionId: order.subscription_id,
    renewsOn: sub ? renewalDate(sub.status, sub.current_period_end.toISOString()) : null,
    hasBenefits: true,
  };
}

/**
 * What the mail says of the order in the `order.paid` event `data`, with whether its product has
 * live benefits as the paying transaction read it (products/memo.ts: no statement of its own);
 * undefined when the event does not have the shape of an order.
 */
async function knownOfEvent(
  trx: Parameters<EventSink["enqueue"]>[0],
  organizationId: string,
  data: unknown,
): Promise<Known | undefined> {
  const parsed = PaidOrder.safeParse(data);
  if (!parsed.success) return undefined;
  const order = parsed.data;
  const [product] = order.product_id ? await productWiresOnce(trx, organizationId, [order.product_id]) : [];
  const sub = order.subscription;
  return {
    customerId: order.customer_id,
    productId: order.product_id,
    productName: order.product?.name ?? null,
    totalAmount: order.total_amount,
    currency: order.currency,
    invoiceNumber: order.invoice_number,
    subscriptionId: order.subscription_id,
    renewsOn: sub ? renewalDate(sub.status, sub.current_period_end) : null,
    // A product not found (deleted since) is read again by the job, as before.
    hasBenefits: product ? product.benefits.length > 0 : true,
  };
}

/** One line of "What you get": the benefit's name, and what the buyer needs to know now. */
async function benefitLine(
  db: Kysely<KassaDatabase>,
  organizationId: string,
  customerId: string,
  benefit: BenefitWire,
  grant: GrantRow | undefined,
): Promise<{ title: string; detail: string | null }> {
  const title = benefit.description;
  if (!grant?.granted_at) {
    if (grant?.error) return { title, detail: grant.error.message };
    return { title, detail: "on its way: see your customer portal" };
  }
  const properties = (benefit.properties ?? {}) as Record<string, unknown>;
  switch (benefit.type) {
    case "custom":
      return {
        title,
        detail: typeof properties.note === "string" && properties.note ? properties.note : null,
      };
    case "license_keys": {
      const id = grant.properties.license_key_id;
      const key =
        typeof id === "string" ? await findLicenseKey(db, organizationId, id, { customerId }) : undefined;
      return { title, detail: key ? `your license key is ${key.key}` : null };
    }
    case "downloadables": {
      const files = Array.isArray(grant.properties.files) ? grant.properties.files.length : 0;
      return {
        title,
        detail: `${files} ${files === 1 ? "file" : "files"} to download in your customer portal`,
      };
    }
    case "meter_credit":
      return { title, detail: `${String(properties.units)} units credited` };
    default:
      return { title, detail: "connect your account in your customer portal" };
  }
}

/**
 * The outbox seam (composed in the root around the other sinks): a checkout's order, paid,
 * queues its confirmation mail in the same transaction.
 */
export function orderMailsSink(inner: EventSink): EventSink {
  return {
    async enqueue(trx, event) {
      await inner.enqueue(trx, event);
      if (event.type !== "order.paid") return;
      const data = (event.data ?? {}) as Record<string, unknown>;
      const reason = data.billing_reason;
      if ((reason === "purchase" || reason === "subscription_create") && typeof data.id === "string")
        await enqueueWithEvents(trx, {
          name: CONFIRMATION_JOB,
          payload: Payload.parse({
            organizationId: event.organizationId,
            orderId: data.id,
            known: await knownOfEvent(trx, event.organizationId, data),
          }),
        });
    },
    ...(inner.flush ? { flush: inner.flush.bind(inner) } : {}),
  };
}
