import { ApiError, RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class CheckoutNotFound extends ResourceNotFound {
  constructor() {
    super("Checkout not found.");
  }
}

/** 410: past `expires_at` (Polar's ExpiredCheckoutError, which its SDK expects on the client endpoints). */
export class CheckoutExpired extends ApiError {
  constructor() {
    super("ExpiredCheckoutError", 410, "This checkout session has expired.");
  }
}

/** 403: the checkout is being paid or was paid already (Polar's NotOpenCheckout). */
export class NotOpenCheckout extends ApiError {
  constructor(id: string, status: string) {
    super("NotOpenCheckout", 403, `Checkout ${id} is not open: ${status}`);
  }
}

/** 400: the processor declined the payment; the checkout is open again for another card. */
export class PaymentError extends ApiError {
  constructor(message: string | null) {
    super(
      "PaymentError",
      400,
      `The payment failed${message ? `: ${message}` : "."} Please try again with a different payment method.`,
    );
  }
}

/** 409: another request is confirming this checkout right now (Polar's CheckoutLocked). */
export class CheckoutLocked extends ApiError {
  constructor() {
    super("CheckoutLocked", 409, "Checkout is currently being processed. Please try again.");
  }
}

export const fieldError = (field: (string | number)[], msg: string, input: unknown, type = "value_error") =>
  new RequestValidationError([{ type, loc: ["body", ...field], msg, input }]);

/** Polar's refusal when the organization allows one subscription per customer and this one has it. */
export class AlreadyActiveSubscription extends ApiError {
  constructor() {
    super("AlreadyActiveSubscriptionError", 403, "You already have an active subscription.");
  }
}
