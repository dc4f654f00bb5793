import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class CustomerNotFound extends ResourceNotFound {
  constructor() {
    super("Customer not found.");
  }
}

/** Polar answers a taken e-mail with a 422 on the field (not a 409). */
export class CustomerEmailTaken extends RequestValidationError {
  constructor(email: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "email"],
        msg: "A customer with this email address already exists.",
        input: email,
      },
    ]);
  }
}

export class CustomerExternalIdTaken extends RequestValidationError {
  constructor(externalId: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "external_id"],
        msg: "A customer with this external ID already exists.",
        input: externalId,
      },
    ]);
  }
}

export class CustomerExternalIdLocked extends RequestValidationError {
  constructor(input: unknown) {
    super([
      {
        type: "value_error",
        loc: ["body", "external_id"],
        msg: "Customer external ID cannot be updated.",
        input,
      },
    ]);
  }
}

export class BillingAddressRequired extends RequestValidationError {
  constructor() {
    super([
      {
        type: "missing",
        loc: ["body", "billing_address"],
        msg: "Country is required to validate tax ID.",
        input: null,
      },
    ]);
  }
}

export class BillingAddressNotResettable extends RequestValidationError {
  constructor() {
    super([
      {
        type: "value_error",
        loc: ["body", "billing_address"],
        msg: "Customer billing address cannot be reset to null once set.",
        input: null,
      },
    ]);
  }
}

export class InvalidTaxId extends RequestValidationError {
  constructor(input: string) {
    super([{ type: "invalid", loc: ["body", "tax_id"], msg: "Invalid tax ID.", input }]);
  }
}
