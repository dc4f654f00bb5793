import { randomUUID } from "node:crypto";
import { isUniqueViolation } from "../../db/errors.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { checkReferences } from "../../kit/api/references.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { toValidationIssues } from "../../kit/api/validation.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { findProducts, productSummary } from "../products/index.js";
import { DiscountCodeTaken, DiscountNotFound, DiscountRedeemed } from "./errors.js";
import * as repo from "./repository.js";
import {
  type DiscountCreateInput,
  DiscountRules,
  type DiscountUpdateInput,
  type DiscountWire,
} from "./schemas.js";

async function toWire(db: Db, organizationId: string, rows: repo.DiscountRow[]): Promise<DiscountWire[]> {
  const links = await repo.productIdsOf(
    db,
    rows.map((r) => r.id),
  );
  const products = new Map(
    (await findProducts(db, organizationId, [...new Set(links.map((l) => l.product_id))])).map((p) => [
      p.id,
      productSummary(p),
    ]),
  );
  return rows.map((row) => {
    const fixed =
      row.type === "fixed"
        ? {
            amount: row.amount ?? 0,
            currency: row.currency ?? "usd",
            amounts: { [row.currency ?? "usd"]: row.amount ?? 0 },
          }
        : { basis_points: row.basis_points ?? 0 };
    return {
      duration: row.duration as DiscountWire["duration"],
      ...(row.duration === "repeating" ? { duration_in_months: row.duration_in_months ?? 1 } : {}),
      type: row.type as DiscountWire["type"],
      ...fixed,
      created_at: iso(row.created_at),
      modified_at: iso(row.modified_at),
      id: row.id,
      metadata: row.metadata,
      name: row.name,
      code: row.code,
      starts_at: iso(row.starts_at),
      ends_at: iso(row.ends_at),
      max_redemptions: row.max_redemptions,
      redemptions_count: row.redemptions_count,
      organization_id: row.organization_id,
      products: links
        .filter((l) => l.discount_id === row.id)
        .flatMap((l) => {
          const p = products.get(l.product_id);
          return p ? [p] : [];
        }),
    };
  });
}

async function one(db: Db, organizationId: string, row: repo.DiscountRow) {
  const [wire] = await toWire(db, organizationId, [row]);
  if (!wire) throw new DiscountNotFound();
  return wire;
}

/** Restricted products must be the organization's; each refusal names its entry. */
function checkProducts(db: Db, organizationId: string, ids: string[]) {
  return checkReferences(db, organizationId, [{ kind: "product", ids, loc: ["body", "products"] }]);
}

/** Codes are unique per organization whatever their case; the unique index settles races. */
async function codeUnique<T>(code: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (code && isUniqueViolation(error, repo.CODE_INDEX)) throw new DiscountCodeTaken(code);
    throw error;
  }
}

function columns(d: DiscountCreateInput) {
  return {
    name: d.name,
    code: d.code ?? null,
    type: d.type,
    amount: d.type === "fixed" ? (d.amount ?? null) : null,
    currency: d.type === "fixed" ? (d.currency ?? "usd") : null,
    basis_points: d.type === "percentage" ? (d.basis_points ?? null) : null,
    duration: d.duration,
    duration_in_months: d.duration === "repeating" ? (d.duration_in_months ?? null) : null,
    starts_at: d.starts_at ? new Date(d.starts_at) : null,
    ends_at: d.ends_at ? new Date(d.ends_at) : null,
    max_redemptions: d.max_redemptions ?? null,
    metadata: JSON.stringify(d.metadata ?? {}),
  };
}

export async function listDiscounts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    query?: string | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  const { rows, total } = await repo.listDiscounts(
    ctx.db,
    ctx.organizationId,
    { query: input.query, metadata: input.metadata },
    input,
    parseSorting<repo.DiscountSortField>(input.sorting),
  );
  return listResult(await toWire(ctx.db, ctx.organizationId, rows), total, input);
}

export async function getDiscount({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findDiscount(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new DiscountNotFound();
  return one(ctx.db, ctx.organizationId, row);
}

export async function createDiscount({ ctx, input }: { ctx: Ctx; input: DiscountCreateInput }) {
  return codeUnique(input.code, () =>
    inTransaction(ctx, async (trx) => {
      if (input.code && (await repo.findByCode(trx, ctx.organizationId, input.code)))
        throw new DiscountCodeTaken(input.code);
      const products = [...new Set(input.products ?? [])];
      await checkProducts(trx, ctx.organizationId, input.products ?? []);
      const row = await repo.insertDiscount(trx, {
        id: randomUUID(),
        organization_id: ctx.organizationId,
        ...columns(input),
        created_at: ctx.clock.now(),
        modified_at: null,
        deleted_at: null,
      });
      await repo.replaceProducts(trx, row.id, products);
      return one(trx, ctx.organizationId, row);
    }),
  );
}

const TERMS = ["type", "amount", "currency", "basis_points", "duration", "duration_in_months"] as const;

/**
 * Updates a discount: the patch is merged onto the stored discount and the result must obey
 * every rule a new discount does. Once redeemed, its terms (type, amounts, duration) are fixed.
 */
export async function updateDiscount({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: DiscountUpdateInput };
}) {
  if (!isUuid(input.id)) throw new DiscountNotFound();
  const p = input.patch;
  return codeUnique(p.code, () =>
    inTransaction(ctx, async (trx) => {
      const current = await repo.findDiscount(trx, ctx.organizationId, input.id, { forUpdate: true });
      if (!current) throw new DiscountNotFound();
      if (current.redemptions_count > 0)
        for (const field of TERMS) {
          const value = p[field];
          if (value !== undefined && value !== null && value !== current[field])
            throw new DiscountRedeemed(field, value);
        }
      const pick = <T>(next: T | null | undefined, stored: T) =>
        next === undefined || next === null ? stored : next;
      const type = pick(p.type, current.type);
      const merged = {
        name: pick(p.name, current.name),
        code: p.code !== undefined ? p.code : current.code,
        starts_at: p.starts_at !== undefined ? p.starts_at : iso(current.starts_at),
        ends_at: p.ends_at !== undefined ? p.ends_at : iso(current.ends_at),
        max_redemptions: p.max_redemptions !== undefined ? p.max_redemptions : current.max_redemptions,
        type,
        duration: pick(p.duration, current.duration),
        duration_in_months: pick(p.duration_in_months, current.duration_in_months),
        amount: type === current.type ? pick(p.amount, current.amount) : p.amount,
        currency: type === current.type ? pick(p.currency, current.currency) : p.currency,
        basis_points: type === current.type ? pick(p.basis_points, current.basis_points) : p.basis_points,
        metadata: p.metadata ?? current.metadata,
      };
      const parsed = DiscountRules.safeParse(merged);
      if (!parsed.success)
        throw new RequestValidationError(toValidationIssues(parsed.error.issues, "body", merged));
      const next = parsed.data;
      if (
        next.code &&
        next.code.toLowerCase() !== current.code?.toLowerCase() &&
        (await repo.findByCode(trx, ctx.organizationId, next.code, current.id))
      )
        throw new DiscountCodeTaken(next.code);
      if (p.products) await checkProducts(trx, ctx.organizationId, p.products);
      const row = await repo.updateDiscount(trx, ctx.organizationId, current.id, {
        ...columns(next),
        modified_at: ctx.clock.now(),
      });
      if (!row) throw new DiscountNotFound();
      if (p.products) await repo.replaceProducts(trx, row.id, [...new Set(p.products)]);
      return one(trx, ctx.organizationId, row);
    }),
  );
}

/** Soft delete: the code is free again; orders that used the discount keep naming it. */
export async function deleteDiscount({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id)) throw new DiscountNotFound();
  await inTransaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    const row = await repo.updateDiscount(trx, ctx.organizationId, input.id, {
      deleted_at: now,
      modified_at: now,
    });
    if (!row) throw new DiscountNotFound();
  });
}
