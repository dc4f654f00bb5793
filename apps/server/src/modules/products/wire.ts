import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { benefitToWire } from "../benefits/index.js";
import { customFieldToWire } from "../custom-fields/index.js";
import { productMediaToWire } from "../files/index.js";
import { findMeters } from "../meters/index.js";
import * as repo from "./repository.js";
import type { PriceWire, ProductWire } from "./schemas.js";

type Interval = ProductWire["recurring_interval"];

/** A product's trial as the wire answers it: both fields, or neither (none on a one-time product). */
export function trialOf(
  row: Pick<repo.ProductRow, "recurring_interval" | "trial_interval" | "trial_interval_count">,
) {
  const on =
    row.recurring_interval !== null && row.trial_interval !== null && row.trial_interval_count !== null;
  return {
    trial_interval: on ? (row.trial_interval as NonNullable<ProductWire["trial_interval"]>) : null,
    trial_interval_count: on ? row.trial_interval_count : null,
  };
}

function priceToWire(
  row: repo.PriceRow,
  interval: Interval,
  meters: Map<
    string,
    { id: string; name: string; unit: string; custom_label: string | null; custom_multiplier: number | null }
  >,
): PriceWire {
  const common = {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    source: "catalog" as const,
    price_currency: row.price_currency,
    tax_behavior: row.tax_behavior as PriceWire["tax_behavior"],
    is_archived: row.is_archived,
    product_id: row.product_id,
    type: interval ? ("recurring" as const) : ("one_time" as const),
    recurring_interval: interval,
  };
  switch (row.amount_type) {
    case "fixed":
      return { ...common, amount_type: "fixed", price_amount: row.price_amount ?? 0 };
    case "custom":
      return {
        ...common,
        amount_type: "custom",
        minimum_amount: row.minimum_amount ?? 0,
        maximum_amount: row.maximum_amount,
        preset_amount: row.preset_amount,
      };
    case "metered_unit": {
      const meterId = row.meter_id ?? "";
      const meter = meters.get(meterId) ?? {
        id: meterId,
        name: "",
        unit: "scalar",
        custom_label: null,
        custom_multiplier: null,
      };
      return {
        ...common,
        amount_type: "metered_unit",
        unit_amount: row.unit_amount ?? "0",
        cap_amount: row.cap_amount,
        meter_id: meterId,
        meter,
      };
    }
    default:
      return { ...common, amount_type: "free" };
  }
}

async function meterSummaries(db: Db, organizationId: string, prices: repo.PriceRow[]) {
  const meterIds = [...new Set(prices.flatMap((p) => (p.meter_id ? [p.meter_id] : [])))];
  return new Map(
    (await findMeters(db, organizationId, meterIds)).map((m) => [
      m.id,
      {
        id: m.id,
        name: m.name,
        unit: m.unit,
        custom_label: m.custom_label,
        custom_multiplier: m.custom_multiplier,
      },
    ]),
  );
}

/**
 * Prices by id as Polar answers them, archived ones included, in the order of `ids` (unknown
 * ids are left out): the prices a subscription was sold at, even once the product changed.
 */
export async function pricesToWire(db: Db, organizationId: string, ids: string[]): Promise<PriceWire[]> {
  const rows = await repo.findPrices(db, organizationId, ids);
  const products = new Map(
    (await repo.findProducts(db, organizationId, [...new Set(rows.map((r) => r.product_id))])).map((p) => [
      p.id,
      p,
    ]),
  );
  const meters = await meterSummaries(db, organizationId, rows);
  return ids.flatMap((id) => {
    const row = rows.find((r) => r.id === id);
    if (!row) return [];
    const interval = (products.get(row.product_id)?.recurring_interval ?? null) as Interval;
    return [priceToWire(row, interval, meters)];
  });
}

/** A timestamp as PostgreSQL writes it in JSON (ISO 8601 with an offset), as the driver reads a column: a Date. */
function at(text: string): Date;
function at(text: string | null): Date | null;
function at(text: string | null): Date | null {
  return text === null ? null : new Date(text);
}

function meterSummary(m: NonNullable<repo.PriceWithMeter["meter"]>) {
  return {
    id: m.id,
    name: m.name,
    unit: m.unit,
    custom_label: m.custom_label,
    custom_multiplier: m.custom_multiplier,
  };
}

/** A product as Polar answers it, from its row and its parts read in the same statement (`repo.productParts`). */
export function productWithPartsToWire(row: repo.ProductRow, parts: repo.ProductParts): ProductWire {
  const interval = row.recurring_interval as Interval;
  return {
    ...productSummary(row),
    prices: parts.prices.map(({ meter, ...p }) =>
      priceToWire(
        { ...p, created_at: at(p.created_at), modified_at: at(p.modified_at) },
        interval,
        new Map(meter ? [[meter.id, meterSummary(meter)]] : []),
      ),
    ),
    benefits: parts.benefits.map((b) =>
      benefitToWire({
        ...b,
        created_at: at(b.created_at),
        modified_at: at(b.modified_at),
        deleted_at: at(b.deleted_at),
      }),
    ),
    medias: parts.medias.map((f) =>
      productMediaToWire({
        ...f,
        created_at: at(f.created_at),
        modified_at: at(f.modified_at),
        deleted_at: at(f.deleted_at),
        last_modified_at: at(f.last_modified_at),
      }),
    ),
    attached_custom_fields: parts.attached.map((a) => ({
      custom_field_id: a.custom_field_id,
      custom_field: customFieldToWire({
        ...a.field,
        created_at: at(a.field.created_at),
        modified_at: at(a.field.modified_at),
      }),
      order: a.order,
      required: a.required,
    })),
  };
}

/** Products as Polar answers them: active prices (metered ones embed their meter), benefits, custom fields. */
export async function productsToWire(
  db: Db,
  organizationId: string,
  rows: repo.ProductRow[],
): Promise<ProductWire[]> {
  const parts = await repo.partsOfProducts(
    db,
    organizationId,
    rows.map((r) => r.id),
  );
  return rows.flatMap((row) => {
    const found = parts.get(row.id);
    return found ? [productWithPartsToWire(row, found)] : [];
  });
}

/** A product without its prices, benefits and media: how a discount names the products it applies to. */
export function productSummary(row: repo.ProductRow) {
  const interval = row.recurring_interval as Interval;
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    ...trialOf(row),
    name: row.name,
    description: row.description,
    visibility: row.visibility as ProductWire["visibility"],
    recurring_interval: interval,
    recurring_interval_count: interval ? (row.recurring_interval_count ?? 1) : null,
    meter_interval: (interval ? row.meter_interval : null) as Interval,
    meter_interval_count: interval && row.meter_interval ? (row.meter_interval_count ?? 1) : null,
    is_recurring: interval !== null,
    is_archived: row.is_archived,
    organization_id: row.organization_id,
    metadata: row.metadata,
  };
}
