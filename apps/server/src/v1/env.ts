import type { HttpBindings } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Ctx } from "../kit/context.js";

/**
 * What every `/v1` handler can read from `c.var`. `authenticate` resolves the caller (and
 * applies the rate limit); it runs as the first step of every endpoint (see `requireScope`),
 * after routing, so an unknown path is a 404 whoever asks. `ctx` is set once it has run.
 */
export type V1Env = {
  Bindings: HttpBindings;
  Variables: { ctx: Ctx; authenticate: () => Promise<Ctx> };
};

export type V1App = OpenAPIHono<V1Env>;
