/** The wire schemas live in `@kassa/contracts/v1` (benefit-grants.ts); this module reads them from there. */
export {
  BenefitGrant,
  type BenefitGrantWire,
  CustomerBenefitGrant,
  type CustomerBenefitGrantWire,
} from "@kassa/contracts/v1";
