import { randomUUID } from "node:crypto";
import DecimalModule from "decimal.js";
import type { Insertable } from "kysely";
import type { ProductPriceTable } from "../../db/schema.js";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { referenceIssues } from "../../kit/api/references.js";
import type { Db } from "../../kit/context.js";
import type { PriceRow } from "./repository.js";
import type { PriceCreateInput } from "./schemas.js";

// decimal.js ships CommonJS typings beside an ES module: under NodeNext the default import is
// typed as the module object, while at run time it is the Decimal class itself.
const Decimal = DecimalModule as unknown as typeof DecimalModule.Decimal;
type Decimal = InstanceType<typeof Decimal>;

/** Polar's bounds for a metered unit price: a decimal of cents, up to 17 digits, 12 after the point. */
const UNIT_AMOUNT_MAX_DIGITS = 17;
const UNIT_AMOUNT_MAX_DECIMALS = 12;
/** The minimum of a pay-what-you-want price when none is given (Polar's). */
export const DEFAULT_CUSTOM_MINIMUM = 50;

const STATIC = new Set(["fixed", "custom", "free"]);

/** A metered unit amount, exact and normalized (`"0.5"`, never `5e-1`), or undefined if invalid. */
export function normalizeUnitAmount(value: number | string): string | undefined {
  let d: Decimal;
  try {
    d = new Decimal(typeof value === "number" ? value.toString() : value.trim());
  } catch {
    return undefined;
  }
  if (!d.isFinite() || d.lte(0)) return undefined;
  if (d.decimalPlaces() > UNIT_AMOUNT_MAX_DECIMALS) return undefined;
  if (d.precision(true) > UNIT_AMOUNT_MAX_DIGITS) return undefined;
  return d.toFixed();
}

/** What a product's price list will be: prices kept (by id) and prices to create, in order. */
export type PriceEntry = { kept: PriceRow } | { created: PriceCreateInput };

/**
 * Checks a product's price list as a whole and per price; every refusal names its field
 * (`["body", "prices", i, field]`). Returns the rows to insert for the new prices.
 */
export async function preparePrices(opts: {
  db: Db;
  organizationId: string;
  productId: string;
  recurring: boolean;
  entries: PriceEntry[];
  now: Date;
}): Promise<Insertable<ProductPriceTable>[]> {
  const { db, organizationId, productId, recurring, entries, now } = opts;
  const issues: ValidationIssue[] = [];
  const at = (i: number, field: string, msg: string, input: unknown) =>
    issues.push({ type: "value_error", loc: ["body", "prices", i, field], msg, input });

  // A metered price's meter must be one of the organization's: the refusal of entry i, if any.
  const missingMeters = new Map(
    (
      await referenceIssues(
        db,
        organizationId,
        entries.flatMap((e, i) =>
          "created" in e && e.created.amount_type === "metered_unit"
            ? [{ kind: "meter" as const, id: e.created.meter_id, loc: ["body", "prices", i, "meter_id"] }]
            : [],
        ),
      )
    ).map((issue) => [issue.loc[2], issue]),
  );

  let staticCount = 0;
  let currency: string | undefined;
  const rows: Insertable<ProductPriceTable>[] = [];
  entries.forEach((entry, i) => {
    const amountType = "kept" in entry ? entry.kept.amount_type : entry.created.amount_type;
    const priceCurrency = "kept" in entry ? entry.kept.price_currency : entry.created.price_currency;
    if (STATIC.has(amountType)) {
      staticCount += 1;
      if (staticCount > 1)
        at(i, "amount_type", "A product can have only one static price (fixed, custom or free).", amountType);
    } else if (!recurring) {
      at(i, "amount_type", "Metered prices are only allowed on recurring products.", amountType);
    }
    currency ??= priceCurrency;
    if (priceCurrency !== currency)
      at(
        i,
        "price_currency",
        `All prices of a product must be in the same currency (${currency}).`,
        priceCurrency,
      );
    if ("kept" in entry) return;

    const p = entry.created;
    const row: Insertable<ProductPriceTable> = {
      id: randomUUID(),
      organization_id: organizationId,
      product_id: productId,
      amount_type: p.amount_type,
      price_currency: p.price_currency,
      tax_behavior: p.tax_behavior ?? null,
      price_amount: null,
      minimum_amount: null,
      maximum_amount: null,
      preset_amount: null,
      unit_amount: null,
      cap_amount: null,
      meter_id: null,
      position: i,
      created_at: now,
      modified_at: null,
    };
    if (p.amount_type === "fixed") row.price_amount = p.price_amount;
    if (p.amount_type === "custom") {
      const min = p.minimum_amount ?? DEFAULT_CUSTOM_MINIMUM;
      const max = p.maximum_amount ?? null;
      const preset = p.preset_amount ?? null;
      if (max !== null && max < min)
        at(
          i,
          "maximum_amount",
          "The maximum amount must be greater than or equal to the minimum amount.",
          max,
        );
      if (preset !== null && preset < min)
        at(
          i,
          "preset_amount",
          "The preset amount must be greater than or equal to the minimum amount.",
          preset,
        );
      if (preset !== null && max !== null && preset > max)
        at(i, "preset_amount", "The preset amount must be less than or equal to the maximum amount.", preset);
      Object.assign(row, { minimum_amount: min, maximum_amount: max, preset_amount: preset });
    }
    if (p.amount_type === "metered_unit") {
      const unit = normalizeUnitAmount(p.unit_amount);
      if (unit === undefined)
        at(
          i,
          "unit_amount",
          `Must be a positive decimal number of cents with at most ${UNIT_AMOUNT_MAX_DECIMALS} decimal places and ${UNIT_AMOUNT_MAX_DIGITS} digits.`,
          p.unit_amount,
        );
      const missingMeter = missingMeters.get(i);
      if (missingMeter) issues.push(missingMeter);
      Object.assign(row, {
        unit_amount: unit ?? null,
        meter_id: p.meter_id,
        cap_amount: p.cap_amount ?? null,
      });
    }
    rows.push(row);
  });
  if (issues.length > 0) throw new RequestValidationError(issues);
  return rows;
}
