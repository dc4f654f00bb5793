import { randomUUID } from "node:crypto";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import type { Metadata } from "../../kit/api/metadata.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Ctx, inTransaction } from "../../kit/context.js";
import { MeterNotFound } from "./errors.js";
import type { MeterHooks } from "./hooks.js";
import * as repo from "./repository.js";
import type { MeterCreateInput, MeterUpdateInput, MeterWire } from "./schemas.js";

export function meterToWire(row: repo.MeterRow): MeterWire {
  return {
    metadata: row.metadata,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    name: row.name,
    unit: row.unit as MeterWire["unit"],
    custom_label: row.custom_label,
    custom_multiplier: row.custom_multiplier,
    filter: row.filter as MeterWire["filter"],
    aggregation: row.aggregation as MeterWire["aggregation"],
    organization_id: row.organization_id,
    archived_at: iso(row.archived_at),
    hard_cap_units: row.hard_cap_units === null ? null : Number(row.hard_cap_units),
  };
}

export async function listMeters({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    query?: string | undefined;
    is_archived?: boolean | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  const { rows, total } = await repo.listMeters(
    ctx.db,
    ctx.organizationId,
    { query: input.query, isArchived: input.is_archived, metadata: input.metadata },
    input,
    parseSorting<repo.MeterSortField>(input.sorting),
  );
  return listResult(rows.map(meterToWire), total, input);
}

export async function getMeter({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findMeter(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new MeterNotFound();
  return meterToWire(row);
}

export async function createMeter({ ctx, input }: { ctx: Ctx; input: MeterCreateInput }) {
  const row = await inTransaction(ctx, (trx) =>
    repo.insertMeter(trx, {
      id: randomUUID(),
      organization_id: ctx.organizationId,
      name: input.name,
      unit: input.unit,
      custom_label: input.custom_label ?? null,
      custom_multiplier: input.custom_multiplier ?? null,
      filter: JSON.stringify(input.filter),
      aggregation: JSON.stringify(input.aggregation),
      metadata: JSON.stringify((input.metadata ?? {}) satisfies Metadata),
      created_at: ctx.clock.now(),
      modified_at: null,
      archived_at: null,
      hard_cap_units: input.hard_cap_units ?? null,
    }),
  );
  return meterToWire(row);
}

export async function updateMeter({
  ctx,
  input,
  hooks,
}: {
  ctx: Ctx;
  input: { id: string; patch: MeterUpdateInput };
  hooks?: MeterHooks | undefined;
}) {
  if (!isUuid(input.id)) throw new MeterNotFound();
  const p = input.patch;
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    const current = await repo.findMeter(trx, ctx.organizationId, input.id);
    if (!current) throw new MeterNotFound();
    const row = await repo.updateMeter(trx, ctx.organizationId, input.id, {
      ...(p.name ? { name: p.name } : {}),
      ...(p.unit ? { unit: p.unit } : {}),
      ...(p.custom_label !== undefined ? { custom_label: p.custom_label } : {}),
      ...(p.custom_multiplier !== undefined ? { custom_multiplier: p.custom_multiplier } : {}),
      ...(p.filter ? { filter: JSON.stringify(p.filter) } : {}),
      ...(p.aggregation ? { aggregation: JSON.stringify(p.aggregation) } : {}),
      ...(p.metadata !== undefined ? { metadata: JSON.stringify(p.metadata) } : {}),
      ...(p.is_archived === true && !current.archived_at ? { archived_at: now } : {}),
      ...(p.is_archived === false ? { archived_at: null } : {}),
      ...(p.hard_cap_units !== undefined ? { hard_cap_units: p.hard_cap_units } : {}),
      modified_at: now,
    });
    if (!row) throw new MeterNotFound();
    const counting =
      (p.filter && JSON.stringify(p.filter) !== JSON.stringify(current.filter)) ||
      (p.aggregation && JSON.stringify(p.aggregation) !== JSON.stringify(current.aggregation)) ||
      (p.is_archived === false && current.archived_at !== null);
    if (counting && !row.archived_at) await hooks?.countingChanged?.(trx, ctx, row);
    return meterToWire(row);
  });
}
