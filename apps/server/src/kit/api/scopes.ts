import type { Scope } from "@kassa/contracts";
import { createMiddleware } from "hono/factory";
import type { Ctx } from "../context.js";
import type { V1Env } from "./env.js";
import { InsufficientScope, NotPermitted, Unauthorized } from "./errors.js";

/**
 * Whether the caller may use an endpoint gated by `scope`; throws the endpoint's refusal. A
 * token needs the scope (a `:write` scope also grants its `:read`, as on Polar); a dashboard
 * member needs the `billing` write permission of their role for any write.
 */
export function checkScope(scope: Scope, ctx: Ctx): void {
  const accepted: string[] = [scope];
  if (scope.endsWith(":read")) accepted.push(scope.replace(/:read$/, ":write"));
  const { actor } = ctx;
  if (actor.kind === "token") {
    if (!accepted.some((s) => actor.scopes.includes(s))) throw new InsufficientScope(accepted);
  } else if (actor.kind === "user") {
    if (scope.endsWith(":write") && !actor.canWrite) {
      throw new NotPermitted("Your role in this organization can read billing data but not change it.");
    }
  } else {
    // Customer sessions and checkout secrets only reach their own endpoints, never a scoped one.
    throw new NotPermitted("This endpoint needs an organization access token or a dashboard session.");
  }
}

/**
 * Gates one endpoint (`checkScope`), and names its scope on the request (`routeScope`), so that
 * an answer kept for an Idempotency-Key is replayed only to callers the endpoint would let in.
 */
export function requireScope(scope: Scope) {
  return createMiddleware<V1Env>(async (c, next) => {
    const ctx = await c.var.authenticate();
    c.set("ctx", ctx);
    checkScope(scope, ctx);
    c.set("routeScope", scope);
    await next();
  });
}

/** Gates a customer portal endpoint: the caller is a customer session (see `v1/authenticate.ts`). */
export const requireCustomer = createMiddleware<V1Env>(async (c, next) => {
  const ctx = await c.var.authenticate();
  if (ctx.actor.kind !== "customer") throw new Unauthorized();
  c.set("ctx", ctx);
  await next();
});
