import { Unauthorized } from "../../kit/api/errors.js";
import type { Ctx } from "../../kit/context.js";
import type { Caller } from "./repository.js";

/** The customer of the session; every portal read is limited to their own rows. */
export function callerOf(ctx: Ctx): Caller {
  if (ctx.actor.kind !== "customer") throw new Unauthorized();
  return { organizationId: ctx.organizationId, customerId: ctx.actor.customerId };
}
