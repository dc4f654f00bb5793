import type { PurchasePorts } from "../modules/checkouts/index.js";

/**
 * What a confirmed checkout calls to record the purchase: customers, orders and customer
 * sessions. Undefined until those modules are part of this build: confirm is not served then.
 */
export const purchasePorts: PurchasePorts | undefined = undefined;
