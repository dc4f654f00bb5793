import { runWithAdapter } from "@better-auth/core/context";
import type { AuthContext } from "better-auth";
import { router } from "better-auth/api";
import type { KassaAuth } from "./auth.js";

export type AuthHandler = (request: Request) => Promise<Response>;

/**
 * Better Auth's HTTP handler, with its router built once instead of on every request.
 *
 * `auth.handler` in 1.7 copies the auth context, recomputes the trusted origins and providers
 * from the request, and then rebuilds the whole router (every endpoint of every plugin wrapped
 * again, every route added to a new radix tree) for each request: about a millisecond of CPU
 * per call here, which on the sign-in path competes with scrypt for the cores.
 *
 * The router depends on the request only through those trusted origins and providers, and
 * only when they are functions of the request (or the base URL is dynamic). Kassa's are
 * static lists, already computed when the context was created, so one router built from a
 * copy of that context answers exactly as a fresh one would: the router copies its context
 * into every request, and every endpoint call copies it again before any hook runs. The
 * route steps (origin check, rate limit, captcha, plugins' onRequest) all still run, per
 * request, inside that router. If the configuration ever becomes dynamic, this falls back to
 * `auth.handler`.
 */
export async function createAuthHandler(auth: KassaAuth): Promise<AuthHandler> {
  const context = await auth.$context;
  const options = auth.options;
  const dynamic =
    typeof options.baseURL !== "string" ||
    typeof context.options.trustedOrigins === "function" ||
    typeof options.account?.accountLinking?.trustedProviders === "function";
  if (dynamic) return (request) => auth.handler(request);

  // The context's type is narrowed to Kassa's literal options; the router takes the general one.
  const routerContext: AuthContext = Object.create(
    Object.getPrototypeOf(context),
    Object.getOwnPropertyDescriptors(context),
  );
  const { handler } = router(routerContext, options);
  return async (request) => await runWithAdapter(routerContext.adapter, () => handler(request));
}
