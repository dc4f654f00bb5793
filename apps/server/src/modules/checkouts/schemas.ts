/** The wire schemas live in `@kassa/contracts/v1` (checkouts.ts); this module reads them from there. */
export {
  CHECKOUT_STATUSES,
  Checkout,
  CheckoutConfirm,
  type CheckoutConfirmInput,
  CheckoutCreate,
  type CheckoutCreateInput,
  CheckoutPublic,
  CheckoutPublicConfirmed,
  type CheckoutPublicWire,
  type CheckoutStatus,
  CheckoutUpdate,
  type CheckoutUpdateInput,
  CheckoutUpdatePublic,
  type CheckoutUpdatePublicInput,
  type CheckoutWire,
} from "@kassa/contracts/v1";
