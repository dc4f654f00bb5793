import { randomBytes, randomUUID } from "node:crypto";
import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import type { Metadata } from "../../kit/api/metadata.js";
import { checkReferences, referenceIssues } from "../../kit/api/references.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import {
  type BuyerBase,
  type CheckoutDeps,
  type CheckoutEnv,
  checkoutProductWire,
  createCheckout,
} from "../checkouts/index.js";
import { findDiscountsById } from "../discounts/index.js";
import { findProducts, productOfPrice, productsToWire } from "../products/index.js";
import * as repo from "./repository.js";
import type { CheckoutLinkCreateInput, CheckoutLinkUpdateInput, CheckoutLinkWire } from "./schemas.js";

export const LINK_SECRET_PREFIX = "polar_cl_";

class CheckoutLinkNotFound extends ResourceNotFound {
  constructor() {
    super("Checkout link not found.");
  }
}

/** The public URL of a link: opening it starts a fresh checkout (Polar's path). */
export const linkUrl = (env: CheckoutEnv, clientSecret: string) =>
  `${env.baseURL}/v1/checkout-links/${clientSecret}/redirect`;

async function toWire(
  db: Db,
  env: CheckoutEnv,
  organizationId: string,
  rows: repo.CheckoutLinkRow[],
): Promise<CheckoutLinkWire[]> {
  const links = await repo.productIdsOf(
    db,
    rows.map((r) => r.id),
  );
  const productRows = await findProducts(db, organizationId, [...new Set(links.map((l) => l.product_id))]);
  const products = new Map((await productsToWire(db, organizationId, productRows)).map((p) => [p.id, p]));
  const discounts = new Map(
    (
      await findDiscountsById(
        db,
        organizationId,
        rows.flatMap((r) => (r.discount_id ? [r.discount_id] : [])),
      )
    ).map((d) => [d.id, d]),
  );
  return rows.map((row) => {
    const d = row.discount_id ? discounts.get(row.discount_id) : undefined;
    return {
      id: row.id,
      created_at: iso(row.created_at),
      modified_at: iso(row.modified_at),
      trial_interval: null,
      trial_interval_count: null,
      metadata: row.metadata,
      payment_processor: "stripe" as const,
      client_secret: row.client_secret,
      success_url: row.success_url,
      return_url: row.return_url,
      label: row.label,
      allow_discount_codes: row.allow_discount_codes,
      require_billing_address: row.require_billing_address,
      discount_id: row.discount_id,
      organization_id: row.organization_id,
      products: links
        .filter((l) => l.checkout_link_id === row.id)
        .flatMap((l) => {
          const p = products.get(l.product_id);
          return p ? [{ ...checkoutProductWire(p), metadata: p.metadata }] : [];
        }),
      discount: d
        ? {
            duration: d.duration,
            ...(d.duration === "repeating" ? { duration_in_months: d.duration_in_months ?? 1 } : {}),
            type: d.type,
            ...(d.type === "fixed"
              ? {
                  amount: d.amount ?? 0,
                  currency: d.currency ?? "usd",
                  amounts: { [d.currency ?? "usd"]: d.amount ?? 0 },
                }
              : { basis_points: d.basis_points ?? 0 }),
            created_at: iso(d.created_at),
            modified_at: iso(d.modified_at),
            id: d.id,
            metadata: d.metadata,
            name: d.name,
            code: d.code,
            starts_at: iso(d.starts_at),
            ends_at: iso(d.ends_at),
            max_redemptions: d.max_redemptions,
            redemptions_count: d.redemptions_count,
            organization_id: d.organization_id,
          }
        : null,
      url: linkUrl(env, row.client_secret),
    };
  });
}

async function one(db: Db, env: CheckoutEnv, row: repo.CheckoutLinkRow) {
  const [wire] = await toWire(db, env, row.organization_id, [row]);
  return wire!;
}

/**
 * Products must be the organization's (the shared reference check) and not archived; the
 * discount must be a live one of the organization's. A refusal names the field the products
 * came from: an entry of `products`, or the single `product_id` / `product_price_id`.
 */
async function checkRefs(
  db: Db,
  organizationId: string,
  productIds: string[] | undefined,
  discountId: string | null | undefined,
  productsField: "products" | "product_id" | "product_price_id" = "products",
) {
  const locOf = (i: number) =>
    productsField === "products" ? ["body", "products", i] : ["body", productsField];
  const issues = await referenceIssues(db, organizationId, [
    ...(productIds ?? []).map((id, i) => ({
      kind: "product" as const,
      id,
      loc: locOf(i),
      msg: "Product does not exist.",
    })),
    {
      kind: "discount",
      id: discountId || null,
      loc: ["body", "discount_id"],
      msg: "Discount does not exist.",
    },
  ]);
  if (productIds) {
    const archived = new Set(
      (await findProducts(db, organizationId, productIds.filter(isUuid)))
        .filter((p) => p.is_archived)
        .map((p) => p.id),
    );
    productIds.forEach((id, i) => {
      if (archived.has(id))
        issues.push({
          type: "value_error",
          loc: locOf(i),
          msg: "Product is archived.",
          input: id,
        });
    });
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
}

export async function createLink({
  ctx,
  env,
  input,
}: {
  ctx: Ctx;
  env: CheckoutEnv;
  input: CheckoutLinkCreateInput;
}) {
  return inTransaction(ctx, async (trx) => {
    let ids = input.products ?? (input.product_id ? [input.product_id] : []);
    if (ids.length === 0 && input.product_price_id) {
      await checkReferences(trx, ctx.organizationId, [
        {
          kind: "price",
          id: input.product_price_id,
          loc: ["body", "product_price_id"],
          msg: "Price does not exist.",
        },
      ]);
      const owner = await productOfPrice(trx, ctx.organizationId, input.product_price_id);
      if (!owner) throw new Error(`price ${input.product_price_id} has no product`);
      ids = [owner];
    }
    const productsField = input.products ? "products" : input.product_id ? "product_id" : "product_price_id";
    await checkRefs(trx, ctx.organizationId, ids, input.discount_id, productsField);
    const row = await repo.insertLink(trx, {
      id: randomUUID(),
      organization_id: ctx.organizationId,
      client_secret: `${LINK_SECRET_PREFIX}${randomBytes(32).toString("base64url")}`,
      label: input.label ?? null,
      allow_discount_codes: input.allow_discount_codes,
      require_billing_address: input.require_billing_address,
      discount_id: input.discount_id ?? null,
      success_url: input.success_url ?? null,
      return_url: input.return_url ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: ctx.clock.now(),
      modified_at: null,
      deleted_at: null,
    });
    await repo.replaceProducts(trx, row.id, [...new Set(ids)]);
    return one(trx, env, row);
  });
}

export async function listLinks({
  ctx,
  env,
  input,
}: {
  ctx: Ctx;
  env: CheckoutEnv;
  input: Page & { product_id?: string[] | undefined; sorting?: string[] | undefined };
}) {
  const { rows, total } = await repo.listLinks(
    ctx.db,
    ctx.organizationId,
    { productIds: input.product_id?.filter(isUuid) },
    input,
    parseSorting<repo.CheckoutLinkSortField>(input.sorting),
  );
  return listResult(await toWire(ctx.db, env, ctx.organizationId, rows), total, input);
}

export async function getLink({ ctx, env, input }: { ctx: Ctx; env: CheckoutEnv; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findLink(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new CheckoutLinkNotFound();
  return one(ctx.db, env, row);
}

export async function updateLink({
  ctx,
  env,
  input,
}: {
  ctx: Ctx;
  env: CheckoutEnv;
  input: { id: string; patch: CheckoutLinkUpdateInput };
}) {
  if (!isUuid(input.id)) throw new CheckoutLinkNotFound();
  const p = input.patch;
  return inTransaction(ctx, async (trx) => {
    if (!(await repo.findLink(trx, ctx.organizationId, input.id))) throw new CheckoutLinkNotFound();
    await checkRefs(trx, ctx.organizationId, p.products ?? undefined, p.discount_id);
    const row = await repo.updateLink(trx, ctx.organizationId, input.id, {
      ...(p.label !== undefined ? { label: p.label } : {}),
      ...(p.allow_discount_codes !== undefined && p.allow_discount_codes !== null
        ? { allow_discount_codes: p.allow_discount_codes }
        : {}),
      ...(p.require_billing_address !== undefined && p.require_billing_address !== null
        ? { require_billing_address: p.require_billing_address }
        : {}),
      ...(p.discount_id !== undefined ? { discount_id: p.discount_id } : {}),
      ...(p.success_url !== undefined ? { success_url: p.success_url } : {}),
      ...(p.return_url !== undefined ? { return_url: p.return_url } : {}),
      ...(p.metadata !== undefined ? { metadata: JSON.stringify(p.metadata) } : {}),
      modified_at: ctx.clock.now(),
    });
    if (!row) throw new CheckoutLinkNotFound();
    if (p.products) await repo.replaceProducts(trx, row.id, [...new Set(p.products)]);
    return one(trx, env, row);
  });
}

export async function deleteLink({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id)) throw new CheckoutLinkNotFound();
  const now = ctx.clock.now();
  const row = await repo.updateLink(ctx.db, ctx.organizationId, input.id, {
    deleted_at: now,
    modified_at: now,
  });
  if (!row) throw new CheckoutLinkNotFound();
}

const PREFILLED = new Set([
  "product_id",
  "amount",
  "customer_email",
  "customer_name",
  "embed_origin",
  "reference_id",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
]);

/**
 * Opens a link: a fresh checkout from the link's settings and the query's prefill (product,
 * amount, e-mail, name; `reference_id` and `utm_*` into metadata). Returns where to send the
 * buyer: the checkout page, with the query parameters the checkout did not take.
 */
export async function openLink({
  base,
  deps,
  clientSecret,
  query,
}: {
  base: BuyerBase;
  deps: CheckoutDeps;
  clientSecret: string;
  query: URLSearchParams;
}): Promise<string> {
  const link = await repo.findLinkBySecret(base.db, clientSecret);
  if (!link) throw new CheckoutLinkNotFound();
  const ctx: Ctx = {
    ...base,
    organizationId: link.organization_id,
    actor: { kind: "system", reason: "checkout link" },
  };
  const linked = (await repo.productIdsOf(base.db, [link.id])).map((l) => l.product_id);
  // Products archived (or made drafts) since the link was made are no longer offered.
  const live = new Set(
    (await findProducts(base.db, link.organization_id, linked))
      .filter((p) => !p.is_archived && p.visibility !== "draft")
      .map((p) => p.id),
  );
  const ids = linked.filter((id) => live.has(id));
  if (ids.length === 0) throw new CheckoutLinkNotFound();
  const chosen = query.get("product_id");
  const products = chosen && ids.includes(chosen) ? [chosen, ...ids.filter((id) => id !== chosen)] : ids;
  const metadata: Metadata = { ...link.metadata };
  for (const key of ["reference_id", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"]) {
    const v = query.get(key);
    if (v) metadata[key] = v.slice(0, 500);
  }
  const amount = Number.parseInt(query.get("amount") ?? "", 10);
  const email = query.get("customer_email");
  const input = {
    products,
    amount: Number.isSafeInteger(amount) ? amount : null,
    discount_id: link.discount_id,
    allow_discount_codes: link.allow_discount_codes,
    require_billing_address: link.require_billing_address,
    // Polar's link checkouts offer the product's trial.
    allow_trial: true,
    customer_email: email && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) ? email : null,
    customer_name: query.get("customer_name")?.slice(0, 256) || null,
    metadata,
    success_url: link.success_url,
    return_url: link.return_url,
    embed_origin: query.get("embed_origin") || null,
  };
  let checkout: Awaited<ReturnType<typeof createCheckout>>;
  try {
    checkout = await createCheckout({ ctx, deps, input, checkoutLinkId: link.id });
  } catch (error) {
    // A prefilled amount out of bounds, or a discount no longer redeemable, does not break the link.
    if (!(error instanceof RequestValidationError)) throw error;
    checkout = await createCheckout({
      ctx,
      deps,
      input: { ...input, amount: null, discount_id: null },
      checkoutLinkId: link.id,
    });
  }
  const url = new URL(checkout.url);
  for (const [k, v] of query) if (!PREFILLED.has(k)) url.searchParams.append(k, v);
  return url.toString();
}
