import { randomBytes, randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { AddressValue, KassaDatabase } from "../../db/schema.js";
import { type ApiError, RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import type { Metadata } from "../../kit/api/metadata.js";
import { checkReferences, referenceIssues } from "../../kit/api/references.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Clocks } from "../../kit/clock.js";
import { type Ctx, type Db, type EventSink, emit, inTransaction } from "../../kit/context.js";
import { findCustomer, findCustomerByExternalId, validateTaxId } from "../customers/index.js";
import {
  appliesTo,
  type DiscountRow,
  findDiscount,
  findDiscountByCode,
  findDiscountsById,
  isRedeemable,
} from "../discounts/index.js";
import {
  type PriceWire,
  type ProductWire,
  pinCatalogVersion,
  productOfPrice,
  productWiresOnce,
} from "../products/index.js";
import type { TaxCalculator } from "../tax/index.js";
import { type CustomFieldData, validateCustomFieldData } from "./custom-field-data.js";
import { CheckoutExpired, CheckoutNotFound, fieldError, NotOpenCheckout } from "./errors.js";
import {
  checkCustomAmount,
  figuresOf,
  hasFullAddress,
  staticPrice,
  trialEndOf,
  upfrontAmount,
} from "./pricing.js";
import * as repo from "./repository.js";
import type {
  CheckoutConfirmInput,
  CheckoutCreateInput,
  CheckoutUpdateInput,
  CheckoutUpdatePublicInput,
} from "./schemas.js";
import { isDueToExpire } from "./state.js";
import { type CheckoutEnv, checkoutPublicWire, checkoutsWire, checkoutWire } from "./wire.js";

/** How long a checkout stays open (Polar's 24 hours). */
export const CHECKOUT_TTL_MS = 24 * 60 * 60 * 1000;
export const CLIENT_SECRET_PREFIX = "polar_c_";

export interface CheckoutDeps {
  env: CheckoutEnv;
  tax: TaxCalculator;
}

const newSecret = () => `${CLIENT_SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;

async function loadProducts(db: Db, organizationId: string, ids: string[]) {
  return new Map((await productWiresOnce(db, organizationId, ids.filter(isUuid))).map((p) => [p.id, p]));
}

/** The price a checkout starts on: the one asked for, else the product's static price, else its first. */
function defaultPrice(product: ProductWire): PriceWire | undefined {
  return staticPrice(product.prices) ?? product.prices[0];
}

/**
 * A discount the checkout may use: live, within its dates, not used up, for this product and
 * (fixed) in this currency. Otherwise Polar's "Discount does not exist." on the field given.
 */
async function usableDiscount(
  db: Db,
  organizationId: string,
  product: ProductWire,
  currency: string,
  now: Date,
  by: { id: string } | { code: string },
): Promise<DiscountRow> {
  const field = "id" in by ? "discount_id" : "discount_code";
  const input = "id" in by ? by.id : by.code;
  if (!product.prices.some((p) => p.amount_type !== "free"))
    throw fieldError([field], "Discounts are not applicable to this product.", input);
  const discount =
    "id" in by
      ? isUuid(by.id)
        ? await findDiscount(db, organizationId, by.id)
        : undefined
      : await findDiscountByCode(db, organizationId, by.code);
  if (!discount || !isRedeemable(discount, now) || !(await appliesTo(db, discount, product.id, currency)))
    throw fieldError([field], "Discount does not exist.", input);
  return discount;
}

/** A billing address asking for lines, or a state outside the US/Canada, makes the address required. */
function addressForcesRequirement(a: AddressValue | null | undefined) {
  return Boolean(a && (hasFullAddress(a) || (a.state && a.country !== "US" && a.country !== "CA")));
}

function cleanAddress(a: AddressValue | null | undefined): AddressValue | null {
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

/** The stored amounts of a checkout in its current state. */
async function figureColumns(
  db: Db,
  deps: CheckoutDeps,
  row: Pick<
    repo.CheckoutRow,
    | "organization_id"
    | "amount"
    | "currency"
    | "customer_billing_address"
    | "require_billing_address"
    | "is_business_customer"
    | "trial_end"
  >,
  product: ProductWire | undefined,
  discount: DiscountRow | null,
) {
  const f = await figuresOf(
    {
      organizationId: row.organization_id,
      product,
      amount: row.amount,
      currency: row.currency,
      discount,
      billingAddress: row.customer_billing_address,
      requireBillingAddress: row.require_billing_address,
      isBusinessCustomer: row.is_business_customer,
      trial: row.trial_end !== null,
    },
    deps.tax,
    db,
  );
  return {
    figures: f,
    columns: {
      discount_amount: f.discountAmount,
      net_amount: f.netAmount,
      tax_amount: f.taxAmount,
      total_amount: f.totalAmount,
    },
  };
}

/** A tax ID needs the billing country, and must be valid there (Polar's rules); answered compact. */
function checkTaxId(taxId: string | null | undefined, address: AddressValue | null): string | null {
  if (!taxId) return null;
  if (!address)
    throw fieldError(
      ["customer_billing_address"],
      "Country is required to validate tax ID.",
      null,
      "missing",
    );
  const valid = validateTaxId(taxId, address.country);
  if (!valid) throw fieldError(["customer_tax_id"], "Invalid tax ID.", taxId);
  return valid[0];
}

export async function createCheckout({
  ctx,
  deps,
  input,
  checkoutLinkId = null,
}: {
  ctx: Ctx;
  deps: CheckoutDeps;
  input: CheckoutCreateInput;
  checkoutLinkId?: string | null;
}) {
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    const org = ctx.organizationId;
    // The products offered: `products`, or the deprecated single `product_id` / `product_price_id`.
    let ids = input.products ?? (input.product_id ? [input.product_id] : []);
    const idsField = input.products ? "products" : "product_id";
    // Every id the request names must be the organization's: one check for all of them. When it
    // names products only (the usual create), reading the products below is that check.
    const locOf = (i: number) => (idsField === "products" ? ["body", "products", i] : ["body", "product_id"]);
    const productsOnly = !input.product_price_id && !input.discount_id && !input.customer_id;
    const issues: ValidationIssue[] = productsOnly
      ? []
      : await referenceIssues(trx, org, [
          ...[...new Set(ids)].map((id, i) => ({
            kind: "product" as const,
            id,
            loc: locOf(i),
            msg: "Product does not exist.",
          })),
          {
            kind: "price",
            id: input.product_price_id || null,
            loc: ["body", "product_price_id"],
            msg: "Price does not exist.",
          },
          // An empty string is no discount (or customer), as below.
          {
            kind: "discount",
            id: input.discount_id || null,
            loc: ["body", "discount_id"],
            msg: "Discount does not exist.",
          },
          {
            kind: "customer",
            id: input.customer_id || null,
            loc: ["body", "customer_id"],
            msg: "Customer does not exist.",
          },
        ]);
    if (issues.length > 0) throw new RequestValidationError(issues);
    if (ids.length === 0 && input.product_price_id) {
      const owner = await productOfPrice(trx, org, input.product_price_id);
      if (!owner) throw fieldError(["product_price_id"], "Price does not exist.", input.product_price_id);
      ids = [owner];
    }
    ids = [...new Set(ids)];
    // At the catalog version the request's authentication read, or read now: the products this
    // process already built at that version cost no statement (products/memo.ts).
    await pinCatalogVersion(trx, org, ctx.catalogVersion);
    const products = await loadProducts(trx, org, ids);
    ids.forEach((id, i) => {
      if (!products.has(id))
        issues.push({ type: "value_error", loc: locOf(i), msg: "Product does not exist.", input: id });
    });
    if (issues.length > 0) throw new RequestValidationError(issues);
    ids.forEach((id, i) => {
      const loc = locOf(i);
      const p = products.get(id);
      if (!p) return;
      if (p.is_archived) issues.push({ type: "value_error", loc, msg: "Product is archived.", input: id });
      else if (p.visibility === "draft")
        issues.push({ type: "value_error", loc, msg: "Product is a draft.", input: id });
    });
    if (issues.length > 0) throw new RequestValidationError(issues);

    let product = products.get(ids[0]!)!;
    let price = defaultPrice(product);
    if (input.product_price_id) {
      const owner = [...products.values()].find((p) => p.prices.some((x) => x.id === input.product_price_id));
      if (!owner) throw fieldError(["product_price_id"], "Price does not exist.", input.product_price_id);
      product = owner;
      price = owner.prices.find((x) => x.id === input.product_price_id);
    }
    if (!price) throw fieldError([idsField], "Product is not available in the specified currency.", ids[0]);
    const currency = price.price_currency;
    const custom = staticPrice(product.prices);
    if (input.amount !== null && input.amount !== undefined && custom?.amount_type === "custom")
      checkCustomAmount(custom, input.amount, currency);
    const amount = upfrontAmount(product.prices, input.amount);

    const discount = input.discount_id
      ? await usableDiscount(trx, org, product, currency, now, { id: input.discount_id })
      : null;

    let customer: Awaited<ReturnType<typeof findCustomer>>;
    if (input.customer_id) {
      customer = isUuid(input.customer_id) ? await findCustomer(trx, org, input.customer_id) : undefined;
      if (!customer) throw fieldError(["customer_id"], "Customer does not exist.", input.customer_id);
    } else if (input.external_customer_id) {
      customer = await findCustomerByExternalId(trx, org, input.external_customer_id);
    }

    let billingAddress = cleanAddress(input.customer_billing_address);
    const givenTaxId = checkTaxId(input.customer_tax_id, billingAddress);
    const { data: customFieldData } = (() => {
      const r = validateCustomFieldData(product.attached_custom_fields, input.custom_field_data, {
        requireAll: false,
      });
      if (r.issues.length > 0) throw new RequestValidationError(r.issues);
      return r;
    })();

    let email = input.customer_email ?? null;
    let name = input.customer_name ?? null;
    let taxId = givenTaxId;
    if (customer) {
      email ??= customer.email;
      name ??= customer.name;
      billingAddress ??= cleanAddress(customer.billing_address);
      taxId ??= customer.tax_id?.[0] ?? null;
    }
    const trial = {
      allow_trial: input.allow_trial,
      trial_interval: input.trial_interval ?? null,
      trial_interval_count: input.trial_interval_count ?? null,
    };
    const base = {
      id: randomUUID(),
      organization_id: org,
      ...trial,
      trial_end: trialEndOf(trial, product, now),
      client_secret: newSecret(),
      status: "open",
      product_ids: JSON.stringify(ids),
      product_id: product.id,
      product_price_id: price.id,
      amount,
      currency,
      discount_id: discount?.id ?? null,
      allow_discount_codes: input.allow_discount_codes,
      require_billing_address: input.require_billing_address || addressForcesRequirement(billingAddress),
      is_business_customer: input.is_business_customer ?? false,
      customer_id: customer?.id ?? null,
      external_customer_id: input.external_customer_id ?? customer?.external_id ?? null,
      customer_name: name,
      customer_email: email,
      customer_ip_address: input.customer_ip_address ?? null,
      customer_billing_name: input.customer_billing_name ?? null,
      customer_billing_address: JSON.stringify(billingAddress),
      customer_tax_id: taxId,
      customer_metadata: JSON.stringify(input.customer_metadata ?? {}),
      metadata: JSON.stringify(input.metadata ?? {}),
      custom_field_data: JSON.stringify(customFieldData),
      success_url: input.success_url ?? null,
      return_url: input.return_url ?? null,
      embed_origin: input.embed_origin ?? null,
      checkout_link_id: checkoutLinkId,
      attempt: 0,
      payment_error: null,
      payment_outcome: JSON.stringify(null),
      order_id: null,
      subscription_id: null,
      expires_at: new Date(now.getTime() + CHECKOUT_TTL_MS),
      created_at: now,
      modified_at: null,
    };
    const { columns } = await figureColumns(
      trx,
      deps,
      { ...base, customer_billing_address: billingAddress },
      product,
      discount,
    );
    const row = await repo.insertCheckout(trx, { ...base, ...columns });
    const wire = await checkoutWire(trx, deps.env, row);
    await emit(ctx, trx, "checkout.created", wire);
    return wire;
  });
}

/** What the buyer chose to pay per period on a checkout (a pay-what-you-want price), if it exists. */
export async function checkoutAmount(db: Db, organizationId: string, id: string) {
  return (await repo.findCheckout(db, organizationId, id))?.amount;
}

/** Open checkouts past `expires_at` are expired when next read (and announced as updated). */
async function expireIfDue(ctx: Ctx, deps: CheckoutDeps, row: repo.CheckoutRow): Promise<repo.CheckoutRow> {
  if (!isDueToExpire(row, ctx.clock.now())) return row;
  return inTransaction(ctx, async (trx) => {
    const expired = await expireDue(trx, ctx, deps, row.id, ctx.clock.now());
    return expired ?? (await repo.findCheckout(trx, row.organization_id, row.id)) ?? row;
  });
}

/**
 * In `trx`: the checkout `id` becomes `expired` if it is open and past `expires_at` by `now`,
 * and its `checkout.updated` is recorded; answers the expired row, or undefined if it was not due.
 */
async function expireDue(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  deps: CheckoutDeps,
  id: string,
  now: Date,
): Promise<repo.CheckoutRow | undefined> {
  const [expired] = await repo.expireOpen(trx, now, { id });
  if (expired) await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, expired));
  return expired;
}

/**
 * What acts on a checkout it read before (a buyer's or merchant's update, the confirm's claim)
 * runs through this: in one transaction, `lock` takes the checkout's row lock (404 if there is
 * none), and `act` then runs on the locked row; unless the row is open and past `expires_at`:
 * it is expired there instead, as a read expires it (the read before the lock may have found
 * it `confirmed`, and that attempt's decline opened it again since, after its expiry), and
 * `expired(row)` (by default the 410 of the client endpoints) is thrown once the transaction has
 * committed the expiry: a throw inside it would undo it.
 */
export async function actOnLocked<T>(
  ctx: Ctx,
  deps: CheckoutDeps,
  how: {
    lock: (trx: Transaction<KassaDatabase>) => Promise<repo.CheckoutRow | undefined>;
    expired?: (row: repo.CheckoutRow) => ApiError;
  },
  act: (trx: Transaction<KassaDatabase>, row: repo.CheckoutRow) => Promise<T>,
): Promise<T> {
  const done = await inTransaction(
    ctx,
    async (trx): Promise<{ due: true; row: repo.CheckoutRow } | { due: false; result: T }> => {
      const row = await how.lock(trx);
      if (!row) throw new CheckoutNotFound();
      const now = ctx.clock.now();
      if (!isDueToExpire(row, now)) return { due: false, result: await act(trx, row) };
      return { due: true, row: (await expireDue(trx, ctx, deps, row.id, now)) ?? row };
    },
  );
  if (done.due) throw how.expired ? how.expired(done.row) : new CheckoutExpired();
  return done.result;
}

/**
 * The test clock's stop for checkouts: the organization's open checkouts whose expiry has come
 * by `at` become `expired`, each stamped with its own `expires_at` (its row and its
 * `checkout.updated`), in one transaction. Answers how many.
 */
export async function expireCheckoutsDue(
  deps: { db: Db; events: EventSink; env: CheckoutEnv },
  organizationId: string,
  at: Date,
): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const expired = await repo.expireOpenAsOfExpiry(trx, organizationId, at);
    for (const row of expired)
      await deps.events.enqueue(trx, {
        organizationId,
        type: "checkout.updated",
        data: await checkoutWire(trx, deps.env, row),
        at: row.expires_at,
      });
    return expired.length;
  });
}

/** When the organization's next open checkout expires, after `after` and by `until`; null if none. */
export function nextCheckoutExpiry(db: Db, organizationId: string, after: Date, until: Date) {
  return repo.nextOpenExpiry(db, organizationId, after, until);
}

export async function listCheckouts({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: CheckoutDeps;
  input: Page & {
    product_id?: string[] | undefined;
    customer_id?: string[] | undefined;
    external_customer_id?: string[] | undefined;
    status?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  await inTransaction(ctx, async (trx) => {
    for (const row of await repo.expireOpen(trx, ctx.clock.now(), { organizationId: ctx.organizationId }))
      await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, row));
  });
  const { rows, total } = await repo.listCheckouts(
    ctx.db,
    ctx.organizationId,
    {
      productIds: input.product_id?.filter(isUuid),
      customerIds: input.customer_id?.filter(isUuid),
      externalCustomerIds: input.external_customer_id,
      statuses: input.status,
      query: input.query,
      metadata: input.metadata,
    },
    input,
    parseSorting<repo.CheckoutSortField>(input.sorting),
  );
  return listResult(await checkoutsWire(ctx.db, deps.env, ctx.organizationId, rows), total, input);
}

export async function getCheckout({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: CheckoutDeps;
  input: { id: string };
}) {
  const row = isUuid(input.id) ? await repo.findCheckout(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new CheckoutNotFound();
  return checkoutWire(ctx.db, deps.env, await expireIfDue(ctx, deps, row));
}

type AnyUpdate = Partial<
  Omit<CheckoutUpdateInput, "allow_trial"> &
    Omit<CheckoutUpdatePublicInput, "allow_trial"> &
    Omit<CheckoutConfirmInput, "allow_trial">
> & { allow_trial?: boolean | null | undefined };

/**
 * Applies a change to an open checkout (merchant PATCH, buyer PATCH, or the fields sent with
 * confirm) and recomputes its amounts. With `confirm`, required custom fields are checked too
 * and returned as issues (the caller adds the other missing fields and throws one 422).
 */
export async function applyUpdate(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  deps: CheckoutDeps,
  row: repo.CheckoutRow,
  patch: AnyUpdate,
  mode: "merchant" | "public" | "confirm",
) {
  if (row.status !== "open") throw new NotOpenCheckout(row.id, row.status);
  const org = row.organization_id;
  const now = ctx.clock.now();
  const products = await loadProducts(trx, org, row.product_ids);
  let product = row.product_id ? products.get(row.product_id) : undefined;
  let priceId = row.product_price_id;
  let currency = row.currency;
  let amount = row.amount;
  let productChanged = false;

  if (patch.product_id) {
    const next = row.product_ids.includes(patch.product_id) ? products.get(patch.product_id) : undefined;
    if (!next)
      throw fieldError(["product_id"], "Product is not available in this checkout.", patch.product_id);
    if (next.is_archived) throw fieldError(["product_id"], "Product is archived.", patch.product_id);
    productChanged = next.id !== product?.id;
    product = next;
    priceId = defaultPrice(next)?.id ?? null;
  }
  if (patch.product_price_id) {
    const candidates = product ? [product, ...products.values()] : [...products.values()];
    const owner = patch.product_id
      ? product?.prices.some((p) => p.id === patch.product_price_id)
        ? product
        : undefined
      : candidates.find((p) => p.prices.some((x) => x.id === patch.product_price_id));
    if (!owner)
      throw fieldError(
        ["product_price_id"],
        "Price is not available in this checkout.",
        patch.product_price_id,
      );
    productChanged ||= owner.id !== product?.id;
    product = owner;
    priceId = patch.product_price_id;
  }
  if (product && (patch.product_id || patch.product_price_id)) {
    const price = product.prices.find((p) => p.id === priceId);
    currency = price?.price_currency ?? currency;
    amount = upfrontAmount(product.prices, null);
  }

  const custom = product ? staticPrice(product.prices) : undefined;
  if (patch.amount !== null && patch.amount !== undefined && custom?.amount_type === "custom") {
    checkCustomAmount(custom, patch.amount, currency);
    amount = patch.amount;
  }

  let discount = row.discount_id ? ((await findDiscountsById(trx, org, [row.discount_id]))[0] ?? null) : null;
  if (discount && product && productChanged && !(await appliesTo(trx, discount, product.id, currency)))
    discount = null;
  if (mode === "merchant" && patch.discount_id !== undefined) {
    await checkReferences(trx, org, [
      {
        kind: "discount",
        id: patch.discount_id || null,
        loc: ["body", "discount_id"],
        msg: "Discount does not exist.",
      },
    ]);
    discount =
      patch.discount_id && product
        ? await usableDiscount(trx, org, product, currency, now, { id: patch.discount_id })
        : null;
  } else if (mode !== "merchant" && row.allow_discount_codes && patch.discount_code !== undefined) {
    discount =
      patch.discount_code && product
        ? await usableDiscount(trx, org, product, currency, now, { code: patch.discount_code })
        : null;
  }

  const next: repo.CheckoutRow = { ...row };
  if (patch.customer_billing_address)
    next.customer_billing_address = cleanAddress(patch.customer_billing_address);
  const disablingBusiness = patch.is_business_customer === false;
  if (disablingBusiness || patch.customer_tax_id === null) next.customer_tax_id = null;
  else
    next.customer_tax_id = checkTaxId(
      patch.customer_tax_id ?? row.customer_tax_id,
      next.customer_billing_address,
    );

  let customIssues: ValidationIssue[] = [];
  if (product && (mode === "confirm" || patch.custom_field_data !== undefined)) {
    const merged = { ...row.custom_field_data, ...(patch.custom_field_data ?? {}) };
    const r = validateCustomFieldData(product.attached_custom_fields, merged, {
      requireAll: mode === "confirm",
    });
    if (mode !== "confirm" && r.issues.length > 0) throw new RequestValidationError(r.issues);
    customIssues = r.issues;
    next.custom_field_data = { ...(r.data as CustomFieldData) };
  }

  const set = <K extends keyof repo.CheckoutRow>(key: K, value: repo.CheckoutRow[K] | undefined) => {
    if (value !== undefined) next[key] = value;
  };
  set("customer_name", patch.customer_name);
  if (row.customer_id === null) set("customer_email", patch.customer_email);
  set("customer_billing_name", patch.customer_billing_name);
  if (patch.is_business_customer !== null) set("is_business_customer", patch.is_business_customer);
  if (disablingBusiness) next.customer_billing_name = null;
  if (mode === "merchant") {
    if (patch.metadata !== undefined) next.metadata = patch.metadata as Metadata;
    if (patch.customer_metadata) next.customer_metadata = patch.customer_metadata as Metadata;
    if (patch.allow_discount_codes !== null) set("allow_discount_codes", patch.allow_discount_codes);
    if (patch.require_billing_address !== null) set("require_billing_address", patch.require_billing_address);
    set("customer_ip_address", patch.customer_ip_address);
    set("success_url", patch.success_url);
    set("return_url", patch.return_url);
    set("embed_origin", patch.embed_origin);
    if (patch.allow_trial !== null) set("allow_trial", patch.allow_trial);
    set("trial_interval", patch.trial_interval);
    set("trial_interval_count", patch.trial_interval_count);
  } else if (patch.allow_trial === false) next.allow_trial = false;
  // The trial is counted from now, on every change (Polar's `_update_trial_end`).
  next.trial_end = trialEndOf(next, product, now);
  if (addressForcesRequirement(next.customer_billing_address) && patch.customer_billing_address)
    next.require_billing_address = true;
  Object.assign(next, {
    product_id: product?.id ?? null,
    product_price_id: priceId,
    currency,
    amount,
    discount_id: discount?.id ?? null,
  });
  const { columns, figures } = await figureColumns(trx, deps, next, product, discount);
  Object.assign(next, columns);
  return { next, product, discount, figures, customIssues };
}

/** The columns of a checkout row as an update writes them. */
export function rowPatch(next: repo.CheckoutRow, now: Date) {
  return {
    product_id: next.product_id,
    product_price_id: next.product_price_id,
    amount: next.amount,
    currency: next.currency,
    discount_id: next.discount_id,
    discount_amount: next.discount_amount,
    net_amount: next.net_amount,
    tax_amount: next.tax_amount,
    total_amount: next.total_amount,
    allow_discount_codes: next.allow_discount_codes,
    require_billing_address: next.require_billing_address,
    is_business_customer: next.is_business_customer,
    customer_name: next.customer_name,
    customer_email: next.customer_email,
    customer_ip_address: next.customer_ip_address,
    customer_billing_name: next.customer_billing_name,
    customer_billing_address: JSON.stringify(next.customer_billing_address),
    customer_tax_id: next.customer_tax_id,
    customer_metadata: JSON.stringify(next.customer_metadata),
    metadata: JSON.stringify(next.metadata),
    custom_field_data: JSON.stringify(next.custom_field_data),
    success_url: next.success_url,
    return_url: next.return_url,
    embed_origin: next.embed_origin,
    allow_trial: next.allow_trial,
    trial_interval: next.trial_interval,
    trial_interval_count: next.trial_interval_count,
    trial_end: next.trial_end,
    modified_at: now,
  };
}

export async function updateCheckout({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: CheckoutDeps;
  input: { id: string; patch: CheckoutUpdateInput };
}) {
  if (!isUuid(input.id)) throw new CheckoutNotFound();
  const found = await repo.findCheckout(ctx.db, ctx.organizationId, input.id);
  if (!found) throw new CheckoutNotFound();
  await expireIfDue(ctx, deps, found);
  return actOnLocked(
    ctx,
    deps,
    {
      lock: (trx) => repo.findCheckout(trx, ctx.organizationId, input.id, { forUpdate: true }),
      // What the merchant is answered for a checkout already expired (applyUpdate's, Polar's).
      expired: (row) => new NotOpenCheckout(row.id, row.status),
    },
    async (trx, row) => {
      const { next } = await applyUpdate(trx, ctx, deps, row, input.patch, "merchant");
      const saved = await repo.updateCheckout(trx, row.id, rowPatch(next, ctx.clock.now()));
      const wire = await checkoutWire(trx, deps.env, saved);
      await emit(ctx, trx, "checkout.updated", wire);
      return wire;
    },
  );
}

/** A context for a buyer holding the client secret: the checkout's organization, the checkout as actor. */
/** What a buyer's request runs with before its checkout is known; `clocks` gives the organization's time. */
export type BuyerBase = Omit<Ctx, "organizationId" | "actor"> & { clocks?: Clocks | undefined };

export function buyerContext(base: BuyerBase, row: repo.CheckoutRow): Ctx {
  const { clocks, ...rest } = base;
  return {
    ...rest,
    clock: clocks ? clocks.of(row.organization_id) : base.clock,
    organizationId: row.organization_id,
    actor: { kind: "checkout", checkoutId: row.id },
  };
}

/** The checkout a client secret opens, expired lazily; unknown: 404, expired: 410. */
export async function openBySecret(base: BuyerBase, deps: CheckoutDeps, clientSecret: string) {
  const found = await repo.findBySecret(base.db, clientSecret);
  if (!found) throw new CheckoutNotFound();
  const ctx = buyerContext(base, found);
  const row = await expireIfDue(ctx, deps, found);
  if (row.status === "expired") throw new CheckoutExpired();
  return { ctx, row };
}

/**
 * The public checkout (`GET /v1/checkouts/client/{client_secret}`); with `opened`,
 * `POST .../opened` (Polar's, private there): the checkout page says a buyer opened it, kept
 * the first time; the metrics count checkouts by it.
 */
export async function getClientCheckout({
  base,
  deps,
  clientSecret,
  opened = false,
}: {
  base: BuyerBase;
  deps: CheckoutDeps;
  clientSecret: string;
  opened?: boolean;
}) {
  const { ctx, row } = await openBySecret(base, deps, clientSecret);
  const shown = opened && !row.opened_at ? await repo.markOpened(ctx.db, row.id, ctx.clock.now()) : row;
  return checkoutPublicWire(ctx.db, deps.env, shown);
}

export async function updateClientCheckout({
  base,
  deps,
  clientSecret,
  patch,
}: {
  base: BuyerBase;
  deps: CheckoutDeps;
  clientSecret: string;
  patch: CheckoutUpdatePublicInput;
}) {
  const { ctx } = await openBySecret(base, deps, clientSecret);
  return actOnLocked(
    ctx,
    deps,
    { lock: (trx) => repo.findBySecret(trx, clientSecret, { forUpdate: true }) },
    async (trx, row) => {
      const { next } = await applyUpdate(trx, ctx, deps, row, patch, "public");
      const saved = await repo.updateCheckout(trx, row.id, rowPatch(next, ctx.clock.now()));
      await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
      return checkoutPublicWire(trx, deps.env, saved);
    },
  );
}
