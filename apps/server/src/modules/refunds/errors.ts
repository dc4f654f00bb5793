import { ApiError, RequestValidationError } from "../../kit/api/errors.js";

/** The order is unknown to the caller's organization: a 422 on `order_id`, as Polar answers. */
export class RefundOrderNotFound extends RequestValidationError {
  static readonly msg = "Order not found";
  constructor(orderId: string) {
    super([{ type: "value_error", loc: ["body", "order_id"], msg: RefundOrderNotFound.msg, input: orderId }]);
  }
}

/** The order has not been paid (or was free of charge): nothing went through a processor. */
export class RefundOrderNotPaid extends RequestValidationError {
  constructor(orderId: string, msg = "Order is not paid, so there is nothing to refund.") {
    super([{ type: "value_error", loc: ["body", "order_id"], msg, input: orderId }]);
  }
}

/** More than what is left to refund (pending refunds included), in Polar's words. */
export class RefundAmountTooHigh extends RequestValidationError {
  constructor(amount: number, refundable: number) {
    super([
      {
        type: "value_error",
        loc: ["body", "amount"],
        msg: `Refund amount exceeds refundable amount (${refundable} left to refund)`,
        input: amount,
      },
    ]);
  }
}

/** 403 `RefundedAlready`, the error the SDK knows for `refunds.create`. */
export class RefundedAlready extends ApiError {
  constructor(orderId: string) {
    super("RefundedAlready", 403, `Order is already fully refunded: ${orderId}`);
  }
}

/** Polar's rule: a subscription's benefits are revoked when the subscription is, not by a refund. */
export class RevokeSubscriptionBenefitsProhibited extends RequestValidationError {
  constructor() {
    super([
      {
        type: "value_error",
        loc: ["body", "revoke_benefits"],
        msg: "Subscription benefits can only be revoked upon cancellation",
        input: true,
      },
    ]);
  }
}

/** The processor refused the refund outright (its message says why); nothing was refunded. */
export class RefundRefusedByProcessor extends RequestValidationError {
  constructor(orderId: string, message: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "order_id"],
        msg: `The payment processor refused the refund: ${message}`,
        input: orderId,
      },
    ]);
  }
}
