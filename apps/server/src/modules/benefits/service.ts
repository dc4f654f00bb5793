import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { checkReferences } from "../../kit/api/references.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { toValidationIssues } from "../../kit/api/validation.js";
import { type Ctx, type Db, emit, inTransaction } from "../../kit/context.js";
import { BenefitNotFound } from "./errors.js";
import * as repo from "./repository.js";
import {
  type BenefitCreateInput,
  type BenefitType,
  type BenefitUpdateInput,
  type BenefitWire,
  PROPERTIES,
} from "./schemas.js";
import { checkTarget } from "./targets.js";

export function benefitToWire(row: repo.BenefitRow): BenefitWire {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    type: row.type as BenefitType,
    description: row.description,
    selectable: true,
    deletable: true,
    is_deleted: row.deleted_at !== null,
    organization_id: row.organization_id,
    metadata: row.metadata,
    properties: row.properties,
  };
}

/**
 * The rows a benefit's properties name must be the organization's: a meter credit's meter, a
 * downloadables benefit's files (live, not deleted).
 */
async function checkPropertyReferences(
  db: Db,
  organizationId: string,
  type: string,
  properties: Record<string, unknown>,
) {
  if (type === "meter_credit")
    await checkReferences(db, organizationId, [
      { kind: "meter", id: String(properties.meter_id), loc: ["body", "properties", "meter_id"] },
    ]);
  if (type === "downloadables")
    await checkReferences(db, organizationId, [
      { kind: "file", ids: properties.files as string[], loc: ["body", "properties", "files"] },
    ]);
  // A repository owner or Discord server the operator gives this organization (targets.ts).
  checkTarget(organizationId, type, properties);
}

export async function listBenefits({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    id?: string[] | undefined;
    exclude_id?: string[] | undefined;
    type?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  const { rows, total } = await repo.listBenefits(
    ctx.db,
    ctx.organizationId,
    {
      ids: input.id?.filter(isUuid),
      excludeIds: input.exclude_id?.filter(isUuid),
      types: input.type,
      query: input.query,
      metadata: input.metadata,
    },
    input,
    parseSorting<repo.BenefitSortField>(input.sorting),
  );
  if (input.id && input.id.length > 0 && input.id.every((id) => !isUuid(id))) return listResult([], 0, input);
  return listResult(rows.map(benefitToWire), total, input);
}

export async function getBenefit({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findBenefit(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new BenefitNotFound();
  return benefitToWire(row);
}

export async function createBenefit({ ctx, input }: { ctx: Ctx; input: BenefitCreateInput }) {
  return inTransaction(ctx, async (trx) => {
    await checkPropertyReferences(trx, ctx.organizationId, input.type, input.properties);
    const row = await repo.insertBenefit(trx, {
      id: randomUUID(),
      organization_id: ctx.organizationId,
      type: input.type,
      description: input.description,
      properties: JSON.stringify(input.properties),
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: ctx.clock.now(),
      modified_at: null,
      deleted_at: null,
    });
    const wire = benefitToWire(row);
    await emit(ctx, trx, "benefit.created", wire);
    return wire;
  });
}

export async function updateBenefit({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: BenefitUpdateInput };
}) {
  if (!isUuid(input.id)) throw new BenefitNotFound();
  const p = input.patch;
  return inTransaction(ctx, async (trx) => {
    const current = await repo.findBenefit(trx, ctx.organizationId, input.id);
    if (!current) throw new BenefitNotFound();
    if (p.type && p.type !== current.type)
      throw RequestValidationError.field(
        ["body", "type"],
        `The type of a benefit cannot change (it is ${current.type})`,
        p.type,
      );
    let properties: Record<string, unknown> | undefined;
    if (p.properties) {
      const parsed = PROPERTIES[current.type as BenefitType].safeParse(p.properties);
      if (!parsed.success) {
        const issues: ValidationIssue[] = toValidationIssues(parsed.error.issues, "body", p.properties).map(
          (i) => ({
            ...i,
            loc: ["body", "properties", ...i.loc.slice(1)],
          }),
        );
        throw new RequestValidationError(issues);
      }
      properties = parsed.data;
      await checkPropertyReferences(trx, ctx.organizationId, current.type, properties);
    }
    const row = await repo.updateBenefit(trx, ctx.organizationId, input.id, {
      ...(p.description ? { description: p.description } : {}),
      ...(properties ? { properties: JSON.stringify(properties) } : {}),
      ...(p.metadata !== undefined ? { metadata: JSON.stringify(p.metadata) } : {}),
      modified_at: ctx.clock.now(),
    });
    if (!row) throw new BenefitNotFound();
    const wire = benefitToWire(row);
    await emit(ctx, trx, "benefit.updated", wire);
    return wire;
  });
}

/** Called in a benefit deletion's transaction, once the benefit is deleted (another module's work). */
export type BenefitDeleted = (ctx: Ctx, trx: Transaction<KassaDatabase>, benefitId: string) => Promise<void>;

/**
 * Soft delete: the benefit disappears from the API and from its products; grants keep naming it
 * (`deleted` revokes them, after commit).
 */
export async function deleteBenefit({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; deleted?: BenefitDeleted | undefined };
}) {
  if (!isUuid(input.id)) throw new BenefitNotFound();
  await inTransaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    const row = await repo.updateBenefit(trx, ctx.organizationId, input.id, {
      deleted_at: now,
      modified_at: now,
    });
    if (!row) throw new BenefitNotFound();
    await repo.detachFromProducts(trx, row.id);
    await input.deleted?.(ctx, trx, row.id);
  });
}

/** The benefits of each product, for product answers. */
export async function benefitsByProduct(db: Db, organizationId: string, productIds: string[]) {
  const rows = await repo.benefitsOfProducts(db, organizationId, productIds);
  const out = new Map<string, BenefitWire[]>();
  for (const { product_id, ...row } of rows)
    out.set(product_id, [...(out.get(product_id) ?? []), benefitToWire(row)]);
  return out;
}

/**
 * Sets a product's benefits (in the given order). Every id must name a live benefit of the
 * organization: a refusal names the entry (`["body", "benefits", i]`).
 */
export async function setProductBenefits(
  db: Db,
  organizationId: string,
  productId: string,
  benefitIds: string[],
) {
  await checkReferences(db, organizationId, [
    { kind: "benefit", ids: benefitIds, loc: ["body", "benefits"] },
  ]);
  await repo.replaceProductBenefits(db, productId, [...new Set(benefitIds)]);
}
