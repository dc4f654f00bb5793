/** The checkouts module: the only file other modules import. */
export type { ConfirmDeps } from "./claim.js";
export { checkoutPaymentListener } from "./listener.js";
export { reconcileCheckouts, startCheckoutReconciler } from "./reconcile.js";
export { type CheckoutRouteDeps, registerCheckoutRoutes } from "./routes.js";
export type { CheckoutCreateInput, CheckoutWire } from "./schemas.js";
export {
  type BuyerBase,
  type CheckoutDeps,
  checkoutAmount,
  createCheckout,
  expireCheckoutsDue,
  nextCheckoutExpiry,
} from "./service.js";
export { type CheckoutEnv, checkoutDiscountWire, checkoutProductWire } from "./wire.js";
