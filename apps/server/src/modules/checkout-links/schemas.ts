/** The wire schemas live in `@kassa/contracts/v1` (checkout-links.ts); this module reads them from there. */
export {
  CheckoutLink,
  CheckoutLinkCreate,
  type CheckoutLinkCreateInput,
  CheckoutLinkUpdate,
  type CheckoutLinkUpdateInput,
  type CheckoutLinkWire,
} from "@kassa/contracts/v1";
