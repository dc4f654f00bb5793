import { Decimal } from "decimal.js";
import type { Db } from "../../kit/context.js";
import * as repo from "./repository.js";

export interface TaxInput {
  organizationId: string;
  /** The net amount (after discounts) in minor units. */
  amount: number;
  currency: string;
  /** The buyer's country (ISO 3166-1 alpha-2), from the billing address; null when unknown. */
  country: string | null;
}

export interface TaxResult {
  /** Minor units, rounded once, half away from zero. */
  taxAmount: number;
  /** The rate applied, in percent, as an exact decimal string ("8.875"); "0" when none. */
  rate: string;
  country: string | null;
}

/**
 * How a checkout learns its `tax_amount`. The default reads the organization's own rates by
 * country; another implementation (Stripe Tax, a tax service) can take its place.
 */
export interface TaxCalculator {
  /** `db` lets a caller read within its own transaction. */
  calculate(input: TaxInput, db?: Db): Promise<TaxResult>;
}

/** `amount * rate / 100`, rounded to an integer half away from zero, computed exactly. */
export function taxOn(amount: number, ratePercent: string): number {
  const tax = new Decimal(amount).times(ratePercent).dividedBy(100);
  return tax.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/** The default: the organization's rate for the buyer's country; none configured, no tax. */
export class OrganizationRateTaxCalculator implements TaxCalculator {
  constructor(private readonly db: Db) {}

  async calculate(input: TaxInput, db: Db = this.db): Promise<TaxResult> {
    const country = input.country ? input.country.toUpperCase() : null;
    const row = country ? await repo.findRateByCountry(db, input.organizationId, country) : undefined;
    if (!row) return { taxAmount: 0, rate: "0", country };
    return { taxAmount: taxOn(input.amount, row.rate), rate: row.rate, country };
  }
}
