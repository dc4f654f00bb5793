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
 * The caller's address for per-address limits: the `X-Forwarded-For` entry the trusted proxies
 * vouch for (`forwardedClient`), else the socket's peer.
 */
export function clientAddress(
  c: { req: { header(name: string): string | undefined }; env: HttpBindings | undefined },
  trustProxy: number,
): string {
  return (
    forwardedClient(c.req.header("x-forwarded-for"), trustProxy) ||
    c.env?.incoming?.socket?.remoteAddress ||
    "unknown"
  );
}

/**
 * The client's address in `X-Forwarded-For` behind `hops` trusted proxies that each append the
 * address they saw: the entry `hops` from the right. The entries left of it are whatever the
 * client wrote, so they never count (taking the first entry let anyone pick a new address, and
 * so a fresh rate-limit budget, with each request). Undefined with no trusted proxy, or when
 * the header has fewer entries than that (the request did not come through them).
 */
export function forwardedClient(header: string | null | undefined, hops: number): string | undefined {
  if (hops <= 0 || !header) return undefined;
  const entries = header.split(",").map((e) => e.trim());
  return entries.length >= hops ? entries[entries.length - hops] || undefined : undefined;
}
