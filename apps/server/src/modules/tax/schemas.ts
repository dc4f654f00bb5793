/** The wire schemas live in `@kassa/contracts/v1` (tax.ts); this module reads them from there. */
export {
  TaxRate,
  TaxRateCreate,
  type TaxRateCreateInput,
  TaxRateListQuery,
  TaxRateUpdate,
  type TaxRateUpdateInput,
  type TaxRateWire,
} from "@kassa/contracts/v1";
