import { ApiError, ResourceNotFound } from "../../kit/api/errors.js";
import type { Ctx } from "../../kit/context.js";
import { findOrganization } from "../organizations/index.js";

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

/** A plan change, or its preview, from the portal: refused when the organization does not allow it (no settings row yet: the default, which allows it). */
export async function refuseUnlessPlanChangesAllowed(ctx: Ctx): Promise<void> {
  const organization = await findOrganization(ctx.db, ctx.organizationId);
  if (organization?.allow_customer_updates === false) throw new UpdateSubscriptionPlanNotAllowed();
}
