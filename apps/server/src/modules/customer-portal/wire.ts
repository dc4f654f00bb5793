import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { benefitsOf, type GrantRow, grantFields } from "../benefit-grants/index.js";
import type { BenefitRow } from "../benefits/index.js";
import type { CustomerRow } from "../customers/index.js";
import { orderItems, publicBillingReason } from "../orders/index.js";
import { findOrganization, type OrganizationRow } from "../organizations/index.js";
import { findProducts, type ProductRow, pricesToWire, productsToWire } from "../products/index.js";
import { findSubscriptions, subscriptionFields } from "../subscriptions/index.js";
import type * as repo from "./repository.js";

type ProductWire = Awaited<ReturnType<typeof productsToWire>>[number];

const address = (value: CustomerRow["billing_address"]) =>
  value
    ? {
        line1: value.line1 ?? null,
        line2: value.line2 ?? null,
        postal_code: value.postal_code ?? null,
        city: value.city ?? null,
        state: value.state ?? null,
        country: value.country,
      }
    : null;

/** Polar's `CustomerPortalCustomer`: what a customer sees of themself. */
export function portalCustomerWire(
  row: CustomerRow,
  defaultPaymentMethodId: string | null = null,
  oauthAccounts: Record<string, { account_id: string; account_username: string | null }> = {},
) {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    email: row.email,
    email_verified: row.email_verified,
    name: row.name,
    // Kassa keeps one name per customer: it is also the name invoices are made out to.
    billing_name: row.name,
    billing_address: address(row.billing_address),
    tax_id: row.tax_id,
    oauth_accounts: oauthAccounts,
    default_payment_method_id: defaultPaymentMethodId,
    type: "individual" as const,
  };
}

/** Polar's `CustomerOrganization`: the seller as its customers see it. */
export function organizationWire(row: OrganizationRow) {
  return {
    created_at: iso(new Date(row.created_at)),
    modified_at: iso(row.modified_at ?? null),
    id: row.id,
    name: row.name,
    slug: row.slug,
    avatar_url: row.logo ?? null,
    proration_behavior: (row.proration_behavior ?? "prorate") as "invoice" | "prorate",
    allow_customer_updates: row.allow_customer_updates ?? true,
    customer_portal_settings: {
      usage: { show: true },
      subscription: { update_seats: true, update_plan: true },
    },
    organization_features: { member_model_enabled: false },
  };
}

/**
 * A product as its buyer sees it (Polar's `CustomerOrderProduct` / `CustomerSubscriptionProduct`):
 * no metadata, no custom fields, benefits in their public shape, and the seller.
 */
function customerProductWire(product: ProductWire, organization: ReturnType<typeof organizationWire>) {
  return {
    id: product.id,
    created_at: product.created_at,
    modified_at: product.modified_at,
    trial_interval: product.trial_interval,
    trial_interval_count: product.trial_interval_count,
    name: product.name,
    description: product.description,
    visibility: product.visibility,
    recurring_interval: product.recurring_interval,
    recurring_interval_count: product.recurring_interval_count,
    is_recurring: product.is_recurring,
    is_archived: product.is_archived,
    organization_id: product.organization_id,
    prices: product.prices,
    benefits: product.benefits.map((b) => ({
      id: b.id,
      created_at: b.created_at,
      modified_at: b.modified_at,
      type: b.type,
      description: b.description,
      selectable: b.selectable,
      deletable: b.deletable,
      is_deleted: false,
      organization_id: b.organization_id,
    })),
    medias: product.medias,
    organization,
  };
}

type CustomerProductWire = ReturnType<typeof customerProductWire>;

/** The products of the portal's organization page (Polar's `CustomerOrganizationData.products`). */
export async function organizationProductsWire(db: Db, organization: OrganizationRow, rows: ProductRow[]) {
  const seller = organizationWire(organization);
  const wires = await productsToWire(db, organization.id, rows);
  return wires.map((p) => customerProductWire(p, seller));
}

async function productsById(db: Db, organizationId: string, ids: string[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, CustomerProductWire>();
  const [rows, organization] = await Promise.all([
    findProducts(db, organizationId, unique),
    findOrganization(db, organizationId).then((o) => {
      if (!o) throw new Error(`organization ${organizationId} not found`);
      return o;
    }),
  ]);
  const seller = organizationWire(organization);
  const wires = await productsToWire(db, organizationId, rows);
  return new Map(wires.map((p) => [p.id, customerProductWire(p, seller)]));
}

/** The subscription fields every shape shares (Polar's `CustomerOrderSubscription`). */
const subscriptionBase = subscriptionFields;

const PAID_STATUSES = new Set(["paid", "refunded", "partially_refunded"]);

/** Orders in Polar's `CustomerOrder` shape (product, subscription and items embedded). */
export async function customerOrdersWire(db: Db, caller: repo.Caller, rows: repo.OrderRow[]) {
  const [products, items, subscriptions] = await Promise.all([
    productsById(
      db,
      caller.organizationId,
      rows.flatMap((r) => (r.product_id ? [r.product_id] : [])),
    ),
    orderItems(
      db,
      rows.map((r) => r.id),
    ),
    findSubscriptions(
      db,
      caller.organizationId,
      rows.flatMap((r) => (r.subscription_id ? [r.subscription_id] : [])),
      { customerId: caller.customerId },
    ),
  ]);
  const subscriptionById = new Map(subscriptions.map((s) => [s.id, subscriptionBase(s)]));
  return rows.map((row) => {
    const product = row.product_id ? (products.get(row.product_id) ?? null) : null;
    const own = items.filter((i) => i.order_id === row.id);
    return {
      id: row.id,
      created_at: iso(row.created_at),
      modified_at: iso(row.modified_at),
      status: row.status as "pending" | "paid" | "refunded" | "partially_refunded" | "void",
      paid: PAID_STATUSES.has(row.status),
      subtotal_amount: row.subtotal_amount,
      discount_amount: row.discount_amount,
      net_amount: row.net_amount,
      tax_amount: row.tax_amount,
      total_amount: row.total_amount,
      applied_balance_amount: 0,
      due_amount: row.status === "pending" ? row.total_amount : 0,
      refunded_amount: row.refunded_amount,
      refunded_tax_amount: row.refunded_tax_amount,
      currency: row.currency,
      billing_reason: publicBillingReason(row.billing_reason),
      billing_name: row.billing_name,
      billing_address: address(row.billing_address),
      invoice_number: row.invoice_number,
      is_invoice_generated: row.invoice_generated_at !== null,
      seats: null,
      customer_id: row.customer_id,
      product_id: row.product_id,
      discount_id: row.discount_id,
      subscription_id: row.subscription_id,
      checkout_id: row.checkout_id,
      product,
      subscription: row.subscription_id ? (subscriptionById.get(row.subscription_id) ?? null) : null,
      items: own.map((i) => ({
        created_at: iso(i.created_at),
        modified_at: iso(i.modified_at),
        id: i.id,
        label: i.label,
        amount: i.amount,
        tax_amount: i.tax_amount,
        proration: i.proration,
        product_price_id: i.product_price_id,
      })),
      description: product?.name ?? own[0]?.label ?? "",
      next_payment_attempt_at: null,
    };
  });
}

/** Subscriptions in Polar's `CustomerSubscription` shape (product with its seller, prices). */
export async function customerSubscriptionsWire(db: Db, caller: repo.Caller, rows: repo.SubscriptionRow[]) {
  const [products, prices] = await Promise.all([
    productsById(
      db,
      caller.organizationId,
      rows.map((r) => r.product_id),
    ),
    pricesToWire(db, caller.organizationId, [...new Set(rows.flatMap((r) => r.price_ids))]).then(
      (list) => new Map(list.map((p) => [p.id, p])),
    ),
  ]);
  return rows.flatMap((row) => {
    const product = products.get(row.product_id);
    if (!product) return [];
    return [
      {
        ...subscriptionBase(row),
        product,
        prices: row.price_ids.flatMap((id) => {
          const price = prices.get(id);
          return price ? [price] : [];
        }),
        meters: [],
        pending_update: null,
      },
    ];
  });
}

export type PortalCustomerWire = ReturnType<typeof portalCustomerWire>;
export type CustomerOrderWire = Awaited<ReturnType<typeof customerOrdersWire>>[number];
export type CustomerSubscriptionWire = Awaited<ReturnType<typeof customerSubscriptionsWire>>[number];

/** What a subscriber sees of a benefit's properties (Polar's `Benefit*SubscriberProperties`). */
function subscriberProperties(benefit: BenefitRow): Record<string, unknown> {
  const p = benefit.properties;
  switch (benefit.type) {
    case "custom":
      return { note: p.note ?? null };
    case "downloadables": {
      const archived = (p.archived as Record<string, boolean> | undefined) ?? {};
      return { active_files: ((p.files as string[] | undefined) ?? []).filter((id) => !archived[id]) };
    }
    case "meter_credit":
      return { units: p.units, rollover: p.rollover, meter_id: p.meter_id };
    case "github_repository":
      return { repository_owner: p.repository_owner, repository_name: p.repository_name };
    case "discord":
      return { guild_id: p.guild_id };
    case "license_keys":
      return {
        prefix: p.prefix ?? null,
        expires: p.expires ?? null,
        activations: p.activations ?? null,
        limit_usage: p.limit_usage ?? null,
      };
    default:
      return {};
  }
}

/** Grants in Polar's `CustomerBenefitGrant` shape: the customer as they see themself, the benefit as a subscriber sees it. */
export async function customerGrantsWire(
  db: Db,
  caller: repo.Caller,
  customer: CustomerRow,
  rows: GrantRow[],
) {
  if (rows.length === 0) return [];
  const [benefits, organization] = await Promise.all([
    benefitsOf(db, caller.organizationId, rows),
    findOrganization(db, caller.organizationId).then((o) => {
      if (!o) throw new Error(`organization ${caller.organizationId} not found`);
      return organizationWire(o);
    }),
  ]);
  const me = portalCustomerWire(customer);
  return rows.map((row) => {
    const benefit = benefits.get(row.benefit_id);
    if (!benefit) throw new Error(`grant ${row.id}: its benefit is missing`);
    return {
      ...grantFields(row),
      customer: me,
      benefit: {
        id: benefit.id,
        created_at: iso(benefit.created_at),
        modified_at: iso(benefit.modified_at),
        type: benefit.type,
        description: benefit.description,
        selectable: true,
        deletable: true,
        is_deleted: benefit.deleted_at !== null,
        organization_id: benefit.organization_id,
        metadata: benefit.metadata,
        organization,
        properties: subscriberProperties(benefit),
      },
    };
  });
}
