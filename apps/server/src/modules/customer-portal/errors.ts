import { ResourceNotFound } from "../../kit/api/errors.js";

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
