import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { Scope } from "@kassa/contracts";
import {
  OAuthError as OAuthErrorBody,
  HTTPValidationError as ValidationErrorBody,
} from "@kassa/contracts/v1";
import { requireCustomer, requireScope } from "./scopes.js";

/** Every `/v1` operation takes an organization access token (or the dashboard's session). */
export const security = [{ access_token: [] }];

export const ErrorBody = (name: string) =>
  z.object({ error: z.literal(name), detail: z.string() }).openapi(name);

const json = (schema: z.ZodType) => ({ "application/json": { schema } });

/** The error answers an operation may give, for the OpenAPI document. */
export function errorResponses(opts: { notFound?: boolean } = {}) {
  return {
    401: { description: "Missing, unknown or expired credentials", content: json(OAuthErrorBody) },
    403: {
      description: "The token lacks the scope, or the member's role cannot write",
      content: json(z.union([OAuthErrorBody, ErrorBody("NotPermitted")])),
    },
    ...(opts.notFound
      ? { 404: { description: "Not found", content: json(ErrorBody("ResourceNotFound")) } }
      : {}),
    422: { description: "Validation Error", content: json(ValidationErrorBody) },
    429: {
      description: "Rate limit exceeded (see `Retry-After`)",
      content: json(ErrorBody("TooManyRequests")),
    },
  } as const;
}

/**
 * Polar's collection roots end in `/` (`/v1/products/`). Routes are registered without it
 * (the router matches both spellings) and the OpenAPI document shows Polar's spelling.
 */
const documentedPaths = new Map<string, string>();

/**
 * An endpoint of the billing API: authenticated, gated by `scope`, and in the document with
 * the token security scheme.
 */
export function route<R extends Omit<RouteConfig, "middleware" | "security">>(config: R & { scope: Scope }) {
  const { scope, ...rest } = config;
  const path = rest.path.endsWith("/") ? rest.path.slice(0, -1) : rest.path;
  if (path !== rest.path) documentedPaths.set(path, rest.path);
  return createRoute({
    ...rest,
    path,
    security,
    middleware: [requireScope(scope)] as const,
    description: `${rest.description ? `${rest.description}\n\n` : ""}**Scopes**: \`${scope}\``,
  });
}

/**
 * An endpoint of the customer portal (`/v1/customer-portal/*`): a customer session
 * (`polar_cst_...`) only, in the document with the customer session security scheme.
 */
export function customerRoute<R extends Omit<RouteConfig, "middleware" | "security">>(config: R) {
  const path = config.path.endsWith("/") ? config.path.slice(0, -1) : config.path;
  if (path !== config.path) documentedPaths.set(path, config.path);
  return createRoute({
    ...config,
    path,
    security: [{ customer_session: [] }],
    middleware: [requireCustomer] as const,
  });
}

/** The document's paths with Polar's trailing slashes restored. */
export function withDocumentedPaths<T extends { paths?: Record<string, unknown> }>(document: T): T {
  if (!document.paths) return document;
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(document.paths)) paths[documentedPaths.get(path) ?? path] = item;
  return { ...document, paths };
}

/**
 * Headers of an answer that carries a secret shown once (a new access token, a webhook
 * endpoint's secret, a customer session's token): no cache keeps it, and the idempotency
 * middleware (v1/idempotency.ts) does not store it for a replay.
 */
export const NO_STORE = { "Cache-Control": "no-store" } as const;
