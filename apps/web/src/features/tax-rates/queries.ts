import type { TaxRateCreate, TaxRate as TaxRateSchema, TaxRateUpdate } from "@kassa/contracts/v1";
import type { z } from "zod";
import { listQuery, type QueryValue } from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/**
 * A tax rate as `/v1/tax-rates/` answers it (Kassa's own resource: one `rate`, a percentage of
 * the net amount kept as exact text, per `country`). Defined here from the contract, as
 * `lib/v1.ts` has no tax types.
 */
export type TaxRate = z.output<typeof TaxRateSchema>;

/** The resource's path under `/v1`, and the key of its cached lists. */
export const TAX_RATES = "tax-rates";

/** An organization's tax rates, a page of them by the list's params (`sorting`: `country`, `created_at`). */
export const taxRatesQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<TaxRate>(organizationId, TAX_RATES, params);

/** A creation names the country; an update changes only the rate and the name (the country is fixed). */
export type TaxRateBody = z.input<typeof TaxRateCreate> | z.input<typeof TaxRateUpdate>;

/** Creates a tax rate, or updates the one named by `id`. */
export const useSaveTaxRate = (organizationId: string) =>
  useSaveRow<TaxRateBody, TaxRate>(organizationId, TAX_RATES);
