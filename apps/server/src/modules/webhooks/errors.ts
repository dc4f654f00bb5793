import { BadRequest, ResourceNotFound } from "../../kit/api/errors.js";

export class WebhookEndpointNotFound extends ResourceNotFound {
  constructor() {
    super("Webhook endpoint not found.");
  }
}

export class WebhookEventNotFound extends ResourceNotFound {
  constructor() {
    super("Webhook event not found.");
  }
}

/** Replaying to a disabled endpoint would only record skipped sends. */
export class EndpointDisabled extends BadRequest {
  constructor() {
    super("The webhook endpoint is disabled: enable it before replaying events to it.");
  }
}
