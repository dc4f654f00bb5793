/** The wire schemas live in `@kassa/contracts/v1` (benefits.ts); this module reads them from there. */
export {
  BENEFIT_PROPERTIES as PROPERTIES,
  BENEFIT_TYPES,
  Benefit,
  BenefitCreate,
  type BenefitCreateInput,
  type BenefitType,
  BenefitUpdate,
  type BenefitUpdateInput,
  type BenefitWire,
  GITHUB_PERMISSIONS,
  LICENSE_KEY_TIMEFRAMES,
} from "@kassa/contracts/v1";
