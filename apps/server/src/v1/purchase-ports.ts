import type { PurchasePorts } from "../modules/checkouts/index.js";
import { createCustomerSession } from "../modules/customer-sessions/index.js";
import { findOrCreateCustomerForCheckout } from "../modules/customers/index.js";
import { recordPurchase } from "../modules/orders/index.js";

/**
 * What a confirmed checkout calls to record the purchase: customers, orders and customer
 * sessions, bound here so that the checkouts module does not import the modules that
 * import it back (orders embed checkouts' ids, the portal lists orders).
 */
export const purchasePorts: PurchasePorts | undefined = {
  findOrCreateCustomerForCheckout,
  recordPurchase,
  createCustomerSession,
};
