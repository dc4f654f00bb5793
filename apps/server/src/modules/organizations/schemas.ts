/** The wire schemas live in `@kassa/contracts/v1` (organizations.ts); this module reads them from there. */
export {
  Organization,
  OrganizationUpdate,
  type OrganizationUpdateInput,
  type OrganizationWire,
  PRORATION_BEHAVIORS,
  SLUG_PATTERN,
  SOCIAL_PLATFORMS,
} from "@kassa/contracts/v1";
