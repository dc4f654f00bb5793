/** The wire schemas live in `@kassa/contracts/v1` (organization-access-tokens.ts); this module reads them from there. */
export {
  OrganizationAccessToken,
  OrganizationAccessTokenCreate,
  type OrganizationAccessTokenCreateInput,
  OrganizationAccessTokenCreateResponse,
  OrganizationAccessTokenUpdate,
  type OrganizationAccessTokenUpdateInput,
  type OrganizationAccessTokenWire,
  ScopeSchema,
} from "@kassa/contracts/v1";
