import { randomUUID } from "node:crypto";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { checkReferences, referenceIssues } from "../../kit/api/references.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, emit, inTransaction } from "../../kit/context.js";
import { setProductBenefits } from "../benefits/index.js";
import { findFiles, replaceProductMedias } from "../files/index.js";
import { cachedCatalogRead } from "./catalog-cache.js";
import { ProductNotFound } from "./errors.js";
import { checkBillingIntervalKeepsMeterCycle, meterCycleOfNewProduct } from "./meter-interval.js";
import { type PriceEntry, preparePrices } from "./prices.js";
import * as repo from "./repository.js";
import type { ProductCreateInput, ProductUpdateInput, ProductWire } from "./schemas.js";
import { productWithPartsToWire } from "./wire.js";

type AttachedInput = { custom_field_id: string; required: boolean }[];

/**
 * The product's media become exactly these files, in this order: each must be a product
 * media file of the organization whose upload is complete.
 */
async function setMedias(db: Db, organizationId: string, productId: string, medias: string[]) {
  // Every refusal in one 422: the ids that name no file of the organization, then the media rules.
  const missing = await referenceIssues(db, organizationId, [
    { kind: "file", ids: medias, loc: ["body", "medias"], msg: "File not found." },
  ]);
  const unknown = new Set(missing.map((issue) => issue.loc.at(-1)));
  const found = new Map((await findFiles(db, organizationId, medias)).map((f) => [f.id, f] as const));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  medias.forEach((id, i) => {
    const file = unknown.has(i) ? undefined : found.get(id);
    const msg = !file
      ? "File not found."
      : file.service !== "product_media"
        ? "This file is not a product media file (service product_media)."
        : !file.is_uploaded
          ? "This file's upload is not complete."
          : seen.has(id)
            ? "This file is already in the list."
            : undefined;
    if (msg) issues.push({ type: "value_error", loc: ["body", "medias", i], msg, input: id });
    seen.add(id);
  });
  if (issues.length > 0) throw new RequestValidationError(issues);
  await replaceProductMedias(db, productId, medias);
}

async function setAttachedCustomFields(
  db: Db,
  organizationId: string,
  productId: string,
  attached: AttachedInput,
) {
  await checkReferences(
    db,
    organizationId,
    attached.map((a, i) => ({
      kind: "custom_field",
      id: a.custom_field_id,
      loc: ["body", "attached_custom_fields", i, "custom_field_id"],
    })),
  );
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  attached.forEach((a, i) => {
    const loc = ["body", "attached_custom_fields", i, "custom_field_id"];
    if (seen.has(a.custom_field_id))
      issues.push({
        type: "value_error",
        loc,
        msg: "This custom field is already attached.",
        input: a.custom_field_id,
      });
    seen.add(a.custom_field_id);
  });
  if (issues.length > 0) throw new RequestValidationError(issues);
  await repo.replaceAttachedCustomFields(
    db,
    productId,
    attached.map((a, order) => ({
      product_id: productId,
      custom_field_id: a.custom_field_id,
      required: a.required,
      order,
    })),
  );
}

async function loadOne(db: Db, organizationId: string, id: string): Promise<ProductWire> {
  const row = await repo.findProductWithParts(db, organizationId, id);
  if (!row) throw new ProductNotFound();
  return productWithPartsToWire(row, row);
}

export async function listProducts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    id?: string[] | undefined;
    query?: string | undefined;
    is_archived?: boolean | undefined;
    is_recurring?: boolean | undefined;
    benefit_id?: string[] | undefined;
    visibility?: string[] | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  // An id that is not a UUID names nothing; a filter made only of such ids matches nothing.
  const ids = input.id?.filter(isUuid);
  const benefitIds = input.benefit_id?.filter(isUuid);
  if ((input.id?.length && !ids?.length) || (input.benefit_id?.length && !benefitIds?.length))
    return listResult([], 0, input);
  const { rows, total } = await repo.listProducts(
    ctx.db,
    ctx.organizationId,
    {
      ids,
      query: input.query,
      isArchived: input.is_archived,
      isRecurring: input.is_recurring,
      visibility: input.visibility,
      benefitIds,
      metadata: input.metadata,
    },
    input,
    parseSorting<repo.ProductSortField>(input.sorting),
  );
  return listResult(
    rows.map((row) => productWithPartsToWire(row, row)),
    total,
    input,
  );
}

export async function getProduct({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id)) throw new ProductNotFound();
  return loadOne(ctx.db, ctx.organizationId, input.id);
}

/** `listProducts`'s answer as JSON text, kept while the organization's catalog is unchanged. */
export function listProductsJson(args: Parameters<typeof listProducts>[0]): Promise<string> {
  return cachedCatalogRead(args.ctx, `list\n${JSON.stringify(args.input)}`, () => listProducts(args));
}

/** `getProduct`'s answer as JSON text, kept while the organization's catalog is unchanged. */
export function getProductJson(args: { ctx: Ctx; input: { id: string } }): Promise<string> {
  if (!isUuid(args.input.id)) throw new ProductNotFound();
  return cachedCatalogRead(args.ctx, `get\n${args.input.id}`, () => getProduct(args));
}

/** Polar refuses a trial on a one-time product, naming both fields. */
function refuseOneTimeTrial(input: {
  trial_interval?: string | null | undefined;
  trial_interval_count?: number | null | undefined;
}) {
  const unit = input.trial_interval ?? null;
  const count = input.trial_interval_count ?? null;
  if (unit === null && count === null) return;
  const msg = "Trial configuration is only supported on recurring products.";
  throw new RequestValidationError([
    { type: "value_error", loc: ["body", "trial_interval"], msg, input: unit },
    { type: "value_error", loc: ["body", "trial_interval_count"], msg, input: count },
  ]);
}

export async function createProduct({ ctx, input }: { ctx: Ctx; input: ProductCreateInput }) {
  const now = ctx.clock.now();
  const id = randomUUID();
  const recurring = Boolean(input.recurring_interval);
  if (!recurring) refuseOneTimeTrial(input);
  return inTransaction(ctx, async (trx) => {
    const meterCycle = await meterCycleOfNewProduct(trx, ctx.organizationId, input);
    const prices = await preparePrices({
      db: trx,
      organizationId: ctx.organizationId,
      productId: id,
      recurring,
      entries: input.prices.map((created) => ({ created })),
      now,
    });
    await repo.insertProduct(trx, {
      id,
      organization_id: ctx.organizationId,
      name: input.name,
      description: input.description ?? null,
      visibility: input.visibility,
      recurring_interval: input.recurring_interval ?? null,
      recurring_interval_count: recurring ? (input.recurring_interval_count ?? 1) : null,
      trial_interval: input.trial_interval ?? null,
      trial_interval_count: input.trial_interval_count ?? null,
      meter_interval: meterCycle?.interval ?? null,
      meter_interval_count: meterCycle?.count ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      modified_at: null,
    });
    await repo.insertPrices(trx, prices);
    await setAttachedCustomFields(trx, ctx.organizationId, id, input.attached_custom_fields);
    if (input.medias) await setMedias(trx, ctx.organizationId, id, input.medias);
    const wire = await loadOne(trx, ctx.organizationId, id);
    await emit(ctx, trx, "product.created", wire);
    return wire;
  });
}

/**
 * Updates a product. A new price list replaces the old one as Polar does: an entry `{id}` keeps
 * that price (same id), other entries create prices, and active prices left out are archived
 * (kept for the orders and subscriptions that use them, no longer offered).
 */
export async function updateProduct({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: ProductUpdateInput };
}) {
  if (!isUuid(input.id)) throw new ProductNotFound();
  const p = input.patch;
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    const current = await repo.findProduct(trx, ctx.organizationId, input.id, { forUpdate: true });
    if (!current) throw new ProductNotFound();
    if (p.recurring_interval && !current.recurring_interval)
      throw RequestValidationError.field(
        ["body", "recurring_interval"],
        "A one-time product cannot become recurring.",
        p.recurring_interval,
      );
    const recurring = current.recurring_interval !== null;
    if (!recurring && !p.recurring_interval) refuseOneTimeTrial(p);
    if (recurring && (p.recurring_interval || p.recurring_interval_count))
      checkBillingIntervalKeepsMeterCycle(
        current,
        (p.recurring_interval ?? current.recurring_interval) as "day" | "week" | "month" | "year",
        p.recurring_interval_count ?? current.recurring_interval_count ?? 1,
      );

    if (p.prices) {
      const active = await repo.activePrices(trx, ctx.organizationId, [current.id]);
      const byId = new Map(active.map((price) => [price.id, price]));
      const issues: ValidationIssue[] = [];
      const entries: PriceEntry[] = p.prices.map((entry, i) => {
        if ("amount_type" in entry) return { created: entry };
        const kept = byId.get(entry.id);
        if (!kept)
          issues.push({
            type: "value_error",
            loc: ["body", "prices", i, "id"],
            msg: "Price not found on this product.",
            input: entry.id,
          });
        return kept ? { kept } : { created: { amount_type: "free", price_currency: "usd" } };
      });
      if (issues.length > 0) throw new RequestValidationError(issues);
      const created = await preparePrices({
        db: trx,
        organizationId: ctx.organizationId,
        productId: current.id,
        recurring,
        entries,
        now,
      });
      const keptIds = new Set<string>();
      for (const [position, entry] of entries.entries())
        if ("kept" in entry) {
          keptIds.add(entry.kept.id);
          await repo.setPricePosition(trx, ctx.organizationId, entry.kept.id, position, now);
        }
      await repo.archivePrices(
        trx,
        ctx.organizationId,
        active.filter((price) => !keptIds.has(price.id)).map((price) => price.id),
        now,
      );
      await repo.insertPrices(trx, created);
    }
    if (p.attached_custom_fields)
      await setAttachedCustomFields(trx, ctx.organizationId, current.id, p.attached_custom_fields);
    if (p.medias) await setMedias(trx, ctx.organizationId, current.id, p.medias);
    await repo.updateProduct(trx, ctx.organizationId, current.id, {
      ...(p.name ? { name: p.name } : {}),
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.recurring_interval ? { recurring_interval: p.recurring_interval } : {}),
      ...(p.recurring_interval_count && recurring
        ? { recurring_interval_count: p.recurring_interval_count }
        : {}),
      // Polar sets each trial field sent (null removes the trial).
      ...(p.trial_interval !== undefined ? { trial_interval: p.trial_interval } : {}),
      ...(p.trial_interval_count !== undefined ? { trial_interval_count: p.trial_interval_count } : {}),
      ...(p.is_archived !== undefined && p.is_archived !== null ? { is_archived: p.is_archived } : {}),
      ...(p.visibility ? { visibility: p.visibility } : {}),
      ...(p.metadata !== undefined ? { metadata: JSON.stringify(p.metadata) } : {}),
      modified_at: now,
    });
    const wire = await loadOne(trx, ctx.organizationId, current.id);
    await emit(ctx, trx, "product.updated", wire);
    return wire;
  });
}

/** `POST /v1/products/{id}/benefits`: the product's benefits become exactly these, in this order. */
export async function updateProductBenefits({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; benefits: string[] };
}) {
  if (!isUuid(input.id)) throw new ProductNotFound();
  return inTransaction(ctx, async (trx) => {
    const current = await repo.findProduct(trx, ctx.organizationId, input.id, { forUpdate: true });
    if (!current) throw new ProductNotFound();
    await setProductBenefits(trx, ctx.organizationId, current.id, input.benefits);
    await repo.updateProduct(trx, ctx.organizationId, current.id, { modified_at: ctx.clock.now() });
    const wire = await loadOne(trx, ctx.organizationId, current.id);
    await emit(ctx, trx, "product.updated", wire);
    return wire;
  });
}
