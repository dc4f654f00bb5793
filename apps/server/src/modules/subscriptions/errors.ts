import { ResourceNotFound } from "../../kit/api/errors.js";

export class SubscriptionNotFound extends ResourceNotFound {
  constructor() {
    super("Subscription not found.");
  }
}
