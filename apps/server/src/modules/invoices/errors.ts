import { ApiError, ResourceNotFound } from "../../kit/api/errors.js";

export class OrderNotFound extends ResourceNotFound {
  constructor() {
    super("Order not found.");
  }
}

/** Polar's 422 when the invoice would have no one to address. */
export class MissingInvoiceBillingDetails extends ApiError {
  constructor() {
    super(
      "MissingInvoiceBillingDetails",
      422,
      "Billing name and address are required to generate an invoice for this order.",
    );
  }
}

/** Polar's 422 for an invoice (or a receipt) of an order that has not been paid. */
export class NotPaidOrder extends ApiError {
  constructor(orderId: string) {
    super("NotPaidOrder", 422, `Order ${orderId} is not paid.`);
  }
}

/** Polar's 404 when the invoice was never generated (`POST /v1/orders/{id}/invoice` first). */
export class InvoiceDoesNotExist extends ResourceNotFound {
  constructor(orderId: string) {
    super(
      `No invoice exists for order ${orderId}. Generate it first with POST /v1/orders/${orderId}/invoice.`,
    );
  }
}
