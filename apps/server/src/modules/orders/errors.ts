import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class OrderNotFound extends ResourceNotFound {
  constructor() {
    super("Order not found.");
  }
}

/** The billing address's country and state are fixed once the order has one (they set its tax). */
export class BillingAddressFixed extends RequestValidationError {
  constructor(fields: { field: "country" | "state"; input: unknown }[]) {
    super(
      fields.map(({ field, input }) => ({
        type: "value_error",
        loc: ["body", "billing_address", field],
        msg: `${field === "country" ? "Country" : "State"} cannot be changed`,
        input,
      })),
    );
  }
}
