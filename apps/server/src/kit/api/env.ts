import type { HttpBindings } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Scope } from "@kassa/contracts";
import type { Ctx } from "../context.js";

/**
 * What every `/v1` handler can read from `c.var`. `authenticate` resolves the caller (and
 * applies the rate limit); it runs as the first step of every endpoint (see `requireScope`),
 * after routing, so an unknown path is a 404 whoever asks. `ctx` is set once it has run.
 */
export type V1Env = {
  Bindings: HttpBindings;
  Variables: {
    ctx: Ctx;
    authenticate: () => Promise<Ctx>;
    /** The scope of the endpoint that answered, once its gate let the caller in (kit/api/scopes.ts). */
    routeScope?: Scope;
  };
};

export type V1App = OpenAPIHono<V1Env>;

/**
 * The caller's address for per-address limits: the first `X-Forwarded-For` entry behind a
 * trusted proxy, else the socket's peer.
 */
export function clientAddress(
  c: { req: { header(name: string): string | undefined }; env: HttpBindings | undefined },
  trustProxy: boolean,
): string {
  const forwarded = trustProxy ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
  return forwarded || c.env?.incoming?.socket?.remoteAddress || "unknown";
}
