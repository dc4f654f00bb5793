/** The refunds module: the only file other modules import. */
export { refundJobs, refundPaymentListener } from "./jobs.js";
export { registerRefundRoutes } from "./routes.js";
export { Refund as RefundSchema, type RefundWire } from "./schemas.js";
export { refundWire } from "./service.js";
