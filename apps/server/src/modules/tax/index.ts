/** The tax module: the only file other modules import. */
export {
  OrganizationRateTaxCalculator,
  type TaxCalculator,
  type TaxInput,
  type TaxResult,
  taxOn,
} from "./calculator.js";
export { registerTaxRoutes } from "./routes.js";
