import { ApiError } from "../../kit/api/errors.js";

/** 401 on `authenticate`: Polar's words, for an unknown, used or expired code alike. */
export class CustomerSessionCodeInvalidOrExpired extends ApiError {
  constructor() {
    super(
      "CustomerSessionCodeInvalidOrExpired",
      401,
      "This customer session code is invalid or has expired.",
    );
  }
}

/** 409 on `request`: several customers of the organization share the e-mail (Polar's body). */
export class CustomerSelectionRequired extends ApiError {
  constructor(readonly customers: { id: string; name: string | null }[]) {
    super("customer_selection_required", 409, "Multiple customers found for this email. Please select one.");
  }

  override body() {
    return { error: this.error, detail: this.detail, customers: this.customers };
  }
}
