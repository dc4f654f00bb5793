/** The wire schemas live in `@kassa/contracts/v1` (customer-portal.ts); this module reads them from there. */
export {
  CustomerOrder,
  CustomerPortalCustomer,
  CustomerSubscription,
} from "@kassa/contracts/v1";
