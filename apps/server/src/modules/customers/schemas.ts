/** The wire schemas live in `@kassa/contracts/v1` (customers.ts); this module reads them from there. */
export {
  Customer,
  CustomerCreate,
  type CustomerCreateInput,
  CustomerState,
  CustomerUpdate,
  CustomerUpdateExternalID,
  type CustomerUpdateExternalInput,
  type CustomerUpdateInput,
} from "@kassa/contracts/v1";
