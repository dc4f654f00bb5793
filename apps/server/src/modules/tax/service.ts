import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { TaxRateCountryTaken, TaxRateNotFound } from "./errors.js";
import * as repo from "./repository.js";
import type { TaxRateCreateInput, TaxRateUpdateInput, TaxRateWire } from "./schemas.js";

function toWire(row: repo.TaxRateRow): TaxRateWire {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    organization_id: row.organization_id,
    country: row.country,
    rate: row.rate,
    display_name: row.display_name,
  };
}

export async function listTaxRates({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & { country?: string[] | undefined; sorting?: string[] | undefined };
}) {
  const sorting = parseSorting<repo.TaxRateSortField>(input.sorting);
  const { rows, total } = await repo.listRates(
    ctx.db,
    ctx.organizationId,
    { country: input.country },
    input,
    sorting,
  );
  return listResult(rows.map(toWire), total, input);
}

export async function getTaxRate({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findRate(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new TaxRateNotFound();
  return toWire(row);
}

export async function createTaxRate({ ctx, input }: { ctx: Ctx; input: TaxRateCreateInput }) {
  const row = await repo.insertRate(ctx.db, {
    organization_id: ctx.organizationId,
    country: input.country,
    rate: input.rate,
    display_name: input.display_name ?? null,
    created_at: ctx.clock.now(),
  });
  if (!row) throw new TaxRateCountryTaken(input.country);
  return toWire(row);
}

export async function updateTaxRate({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: TaxRateUpdateInput };
}) {
  if (!isUuid(input.id)) throw new TaxRateNotFound();
  const row = await repo.updateRate(ctx.db, ctx.organizationId, input.id, {
    ...(input.patch.rate !== undefined ? { rate: input.patch.rate } : {}),
    ...(input.patch.display_name !== undefined ? { display_name: input.patch.display_name } : {}),
    modified_at: ctx.clock.now(),
  });
  if (!row) throw new TaxRateNotFound();
  return toWire(row);
}

export async function deleteTaxRate({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id) || !(await repo.deleteRate(ctx.db, ctx.organizationId, input.id)))
    throw new TaxRateNotFound();
}
