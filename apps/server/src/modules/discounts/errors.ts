import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class DiscountNotFound extends ResourceNotFound {
  constructor() {
    super("Discount not found.");
  }
}

export class DiscountCodeTaken extends RequestValidationError {
  constructor(code: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "code"],
        msg: "A discount with this code already exists.",
        input: code,
      },
    ]);
  }
}

export class DiscountRedeemed extends RequestValidationError {
  constructor(field: string, input: unknown) {
    super([
      {
        type: "value_error",
        loc: ["body", field],
        msg: "This discount has been redeemed: its type, amount and duration can no longer change.",
        input,
      },
    ]);
  }
}
