import type { AddressValue } from "../../db/schema.js";
import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { type DiscountRow, findDiscountsById } from "../discounts/index.js";
import { findOrganization } from "../organizations/index.js";
import type { Payments } from "../payments/index.js";
import { type ProductWire, productWiresOnce } from "../products/index.js";
import { activeTrial, flagsOf } from "./pricing.js";
import type * as repo from "./repository.js";
import type { CheckoutPublicWire, CheckoutWire } from "./schemas.js";

/** What rendering a checkout needs beyond the database: the public URL and the processor. */
export interface CheckoutEnv {
  baseURL: string;
  payments: Pick<Payments, "processor" | "stripe"> | undefined;
}

export const checkoutUrl = (env: CheckoutEnv, clientSecret: string) =>
  `${env.baseURL}/checkout/${clientSecret}`;

export function addressWire(a: AddressValue | null) {
  if (!a) return null;
  return {
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    postal_code: a.postal_code ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    country: a.country,
  };
}

/** A discount as a checkout embeds it (Polar's CheckoutDiscount*). */
export function checkoutDiscountWire(d: DiscountRow) {
  const months = d.duration === "repeating" ? { duration_in_months: d.duration_in_months ?? 1 } : {};
  const terms =
    d.type === "fixed"
      ? {
          amount: d.amount ?? 0,
          currency: d.currency ?? "usd",
          amounts: { [d.currency ?? "usd"]: d.amount ?? 0 },
        }
      : { basis_points: d.basis_points ?? 0 };
  return { duration: d.duration, ...months, type: d.type, ...terms, id: d.id, name: d.name, code: d.code };
}

const BENEFIT_PUBLIC = [
  "id",
  "created_at",
  "modified_at",
  "type",
  "description",
  "selectable",
  "deletable",
  "is_deleted",
  "organization_id",
] as const;

/** A product as the checkout shows it to anyone holding the secret: no metadata, public benefit fields. */
export function checkoutProductWire(p: ProductWire) {
  const { metadata: _m, attached_custom_fields: _a, benefits, ...rest } = p;
  return {
    ...rest,
    benefits: benefits.map((b) => {
      const out: Record<string, unknown> = { selectable: true, deletable: true, is_deleted: false };
      for (const k of BENEFIT_PUBLIC) if (k in b) out[k] = b[k];
      return out;
    }),
  };
}

function processorMetadata(env: CheckoutEnv): Record<string, string> {
  const stripe = env.payments?.stripe;
  if (stripe?.publishableKey) return { publishable_key: stripe.publishableKey, processor: "stripe" };
  return { processor: env.payments?.processor.name ?? "sandbox" };
}

/** Loads what a page of checkouts embeds: their products (with prices) and discounts. */
async function loadRelated(db: Db, organizationId: string, rows: repo.CheckoutRow[]) {
  const productIds = [...new Set(rows.flatMap((r) => r.product_ids))];
  // Once per transaction: a purchase renders its checkout in several events.
  const products = new Map((await productWiresOnce(db, organizationId, productIds)).map((p) => [p.id, p]));
  const discountIds = [...new Set(rows.flatMap((r) => (r.discount_id ? [r.discount_id] : [])))];
  const discounts = new Map((await findDiscountsById(db, organizationId, discountIds)).map((d) => [d.id, d]));
  return { products, discounts };
}

function render(
  row: repo.CheckoutRow,
  env: CheckoutEnv,
  products: Map<string, ProductWire>,
  discounts: Map<string, DiscountRow>,
) {
  const product = row.product_id ? products.get(row.product_id) : undefined;
  const discount = row.discount_id ? (discounts.get(row.discount_id) ?? null) : null;
  const flags = flagsOf({
    product,
    amount: row.amount,
    currency: row.currency,
    discount,
    billingAddress: row.customer_billing_address,
    requireBillingAddress: row.require_billing_address,
    isBusinessCustomer: row.is_business_customer,
    trial: row.trial_end !== null,
  });
  const trial = activeTrial(row, product);
  const offered = row.product_ids.flatMap((id) => {
    const p = products.get(id);
    return p ? [p] : [];
  });
  const price = product?.prices.find((p) => p.id === row.product_price_id) ?? null;
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    custom_field_data: row.custom_field_data,
    payment_processor: "stripe" as const,
    status: row.status as CheckoutWire["status"],
    client_secret: row.client_secret,
    url: checkoutUrl(env, row.client_secret),
    expires_at: iso(row.expires_at),
    success_url:
      row.success_url?.replaceAll("{CHECKOUT_ID}", row.id) ??
      `${checkoutUrl(env, row.client_secret)}/confirmation`,
    return_url: row.return_url,
    embed_origin: row.embed_origin,
    amount: row.amount,
    discount_amount: row.discount_amount,
    net_amount: row.net_amount,
    tax_amount: row.tax_amount,
    tax_behavior: row.tax_amount === null ? null : ("exclusive" as const),
    total_amount: row.total_amount,
    currency: row.currency,
    allow_trial: row.allow_trial,
    active_trial_interval: trial.interval,
    active_trial_interval_count: trial.count,
    trial_end: iso(row.trial_end),
    organization_id: row.organization_id,
    product_id: row.product_id,
    product_price_id: row.product_price_id,
    discount_id: row.discount_id,
    allow_discount_codes: row.allow_discount_codes,
    require_billing_address: row.require_billing_address,
    is_discount_applicable: flags.isDiscountApplicable,
    is_free_product_price: flags.isFreeProductPrice,
    is_payment_required: row.total_amount > 0 && row.trial_end === null,
    is_payment_setup_required: flags.isPaymentSetupRequired,
    is_payment_form_required:
      (row.total_amount > 0 && row.trial_end === null) || flags.isPaymentSetupRequired,
    customer_id: row.customer_id,
    is_business_customer: row.is_business_customer,
    customer_name: row.customer_name,
    customer_email: row.customer_email,
    customer_ip_address: row.customer_ip_address,
    customer_billing_name: row.customer_billing_name,
    customer_billing_address: addressWire(row.customer_billing_address),
    customer_tax_id: row.customer_tax_id,
    locale: "en",
    payment_processor_metadata: processorMetadata(env),
    billing_address_fields: flags.billingFields,
    products: offered.map(checkoutProductWire),
    product: product ? checkoutProductWire(product) : null,
    product_price: price,
    prices: Object.fromEntries(offered.map((p) => [p.id, p.prices])),
    discount: discount ? checkoutDiscountWire(discount) : null,
    attached_custom_fields: product ? product.attached_custom_fields : null,
  };
}

/** Checkouts in Polar's `Checkout` shape (the merchant's view, webhooks). */
export async function checkoutsWire(
  db: Db,
  env: CheckoutEnv,
  organizationId: string,
  rows: repo.CheckoutRow[],
): Promise<CheckoutWire[]> {
  const { products, discounts } = await loadRelated(db, organizationId, rows);
  return rows.map((row) => ({
    ...render(row, env, products, discounts),
    trial_interval: row.trial_interval,
    trial_interval_count: row.trial_interval_count,
    metadata: row.metadata,
    external_customer_id: row.external_customer_id,
    subscription_id: row.subscription_id,
    customer_metadata: row.customer_metadata,
  })) as CheckoutWire[];
}

export async function checkoutWire(db: Db, env: CheckoutEnv, row: repo.CheckoutRow): Promise<CheckoutWire> {
  const [wire] = await checkoutsWire(db, env, row.organization_id, [row]);
  return wire!;
}

/** A checkout in Polar's `CheckoutPublic` shape (the buyer's view, by client secret). */
export async function checkoutPublicWire(
  db: Db,
  env: CheckoutEnv,
  row: repo.CheckoutRow,
): Promise<CheckoutPublicWire> {
  const { products, discounts } = await loadRelated(db, row.organization_id, [row]);
  const org = await findOrganization(db, row.organization_id);
  return {
    ...render(row, env, products, discounts),
    organization: {
      created_at: iso(org?.created_at ?? row.created_at),
      modified_at: iso(org?.modified_at ?? null),
      id: row.organization_id,
      name: org?.name ?? "",
      slug: org?.slug ?? "",
      avatar_url: org?.logo ?? null,
      proration_behavior: (org?.proration_behavior ?? "prorate") as "invoice" | "prorate",
      allow_customer_updates: org?.allow_customer_updates ?? true,
    },
  } as CheckoutPublicWire;
}
