import { ApiError, ResourceNotFound } from "../../kit/api/errors.js";

export class CustomerOrderNotFound extends ResourceNotFound {
  constructor() {
    super("Order not found.");
  }
}

export class CustomerBenefitGrantNotFound extends ResourceNotFound {
  constructor() {
    super("Benefit grant not found.");
  }
}

export class CustomerSubscriptionNotFound extends ResourceNotFound {
  constructor() {
    super("Customer subscription was not found.");
  }
}

/** Polar's refusal when the organization does not let customers change plan. */
export class UpdateSubscriptionPlanNotAllowed extends ApiError {
  constructor() {
    super("UpdateSubscriptionPlanNotAllowed", 403, "Updating subscription plan is not allowed.");
  }
}
