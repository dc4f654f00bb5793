import { createRoute, z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable } from "../../kit/api/list.js";
import { customerRoute, errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { Ctx, EventSink } from "../../kit/context.js";
import {
  LICENSE_KEY_STATUSES,
  LicenseKeyActivate,
  LicenseKeyActivationRead,
  LicenseKeyDeactivate,
  LicenseKeyPublicKey,
  LicenseKeyRead,
  LicenseKeyUpdate,
  LicenseKeyValidate,
  LicenseKeyWithActivations,
  ValidatedLicenseKey,
} from "./schemas.js";
import type { StatusSetHook } from "./service.js";
import * as service from "./service.js";

const TAG = "license_keys";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
const notFound = { 404: { description: "License key not found." } };
const notPermitted = {
  403: {
    description:
      "License key activation not supported or limit reached. Use /validate endpoint for licenses without activations.",
  },
};
const deactivated = { 204: { description: "License key activation deactivated." } };
const PUBLIC_NOTE =
  "\n\nNeeds no authentication: it can be used from a public client, such as a desktop or mobile app. Limited per client address.";

const list = route({
  method: "get",
  path: "/v1/license-keys/",
  tags: [TAG],
  summary: "List license keys",
  scope: "license_keys:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      benefit_id: repeatable(z.string()),
      status: repeatable(z.enum(LICENSE_KEY_STATUSES)),
      ...pageParams,
    }),
  },
  responses: { 200: ok(listResource(LicenseKeyRead, "LicenseKeyRead")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/license-keys/{id}",
  tags: [TAG],
  summary: "Get a license key",
  scope: "license_keys:read",
  request: { params: IdParam },
  responses: { 200: ok(LicenseKeyWithActivations), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/license-keys/{id}",
  tags: [TAG],
  summary: "Update a license key",
  scope: "license_keys:write",
  request: { params: IdParam, body: jsonBody(LicenseKeyUpdate) },
  responses: { 200: ok(LicenseKeyRead), ...errorResponses({ notFound: true }) },
});

const getActivation = route({
  method: "get",
  path: "/v1/license-keys/{id}/activations/{activation_id}",
  tags: [TAG],
  summary: "Get an activation",
  scope: "license_keys:read",
  request: {
    params: IdParam.extend({
      activation_id: z.string().openapi({ param: { name: "activation_id", in: "path" }, format: "uuid4" }),
    }),
  },
  responses: { 200: ok(LicenseKeyActivationRead), ...errorResponses({ notFound: true }) },
});

const validate = route({
  method: "post",
  path: "/v1/license-keys/validate",
  tags: [TAG],
  summary: "Validate a license key",
  scope: "license_keys:write",
  request: { body: jsonBody(LicenseKeyValidate) },
  responses: { 200: ok(ValidatedLicenseKey), ...notFound, ...errorResponses() },
});

const activate = route({
  method: "post",
  path: "/v1/license-keys/activate",
  tags: [TAG],
  summary: "Activate a license key",
  scope: "license_keys:write",
  request: { body: jsonBody(LicenseKeyActivate) },
  responses: { 200: ok(LicenseKeyActivationRead), ...notFound, ...errorResponses(), ...notPermitted },
});

const deactivate = route({
  method: "post",
  path: "/v1/license-keys/deactivate",
  tags: [TAG],
  summary: "Deactivate a license key",
  scope: "license_keys:write",
  request: { body: jsonBody(LicenseKeyDeactivate) },
  responses: { ...deactivated, ...notFound, ...errorResponses() },
});

const publicKey = createRoute({
  method: "get",
  path: "/v1/license-keys/public-key",
  tags: [TAG],
  summary: "Get the organization's public key for signed license keys",
  description:
    "Kassa's own (not in Polar's API). Needs no authentication. The Ed25519 public key that verifies the organization's signed license keys offline (a license_keys benefit with `signed: true`), as PEM (SPKI) and JWK. Made on first use.",
  request: { query: z.object({ organization_id: z.string() }) },
  responses: { 200: ok(LicenseKeyPublicKey), 404: { description: "Organization not found." } },
});

const portal = "customer_portal";

const publicValidate = createRoute({
  method: "post",
  path: "/v1/customer-portal/license-keys/validate",
  tags: [portal],
  summary: "Validate a license key",
  description: `Validate a license key.${PUBLIC_NOTE}`,
  request: { body: jsonBody(LicenseKeyValidate) },
  responses: { 200: ok(ValidatedLicenseKey), ...notFound },
});

const publicActivate = createRoute({
  method: "post",
  path: "/v1/customer-portal/license-keys/activate",
  tags: [portal],
  summary: "Activate a license key",
  description: `Activate a license key instance.${PUBLIC_NOTE}`,
  request: { body: jsonBody(LicenseKeyActivate) },
  responses: { 200: ok(LicenseKeyActivationRead), ...notPermitted, ...notFound },
});

const publicDeactivate = createRoute({
  method: "post",
  path: "/v1/customer-portal/license-keys/deactivate",
  tags: [portal],
  summary: "Deactivate a license key",
  description: `Deactivate a license key instance.${PUBLIC_NOTE}`,
  request: { body: jsonBody(LicenseKeyDeactivate) },
  responses: { ...deactivated, ...notFound },
});

const customerList = customerRoute({
  method: "get",
  path: "/v1/customer-portal/license-keys/",
  tags: [portal],
  summary: "List the authenticated customer's license keys",
  request: { query: z.object({ benefit_id: z.string().optional(), ...pageParams }) },
  responses: { 200: ok(listResource(LicenseKeyRead, "LicenseKeyRead")), ...errorResponses() },
});

const customerGet = customerRoute({
  method: "get",
  path: "/v1/customer-portal/license-keys/{id}",
  tags: [portal],
  summary: "Get one of the authenticated customer's license keys",
  request: { params: IdParam },
  responses: { 200: ok(LicenseKeyWithActivations), ...errorResponses({ notFound: true }) },
});

/** What the public endpoints run with before the organization is known (no caller authenticates). */
export interface LicenseKeyRouteDeps {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  /** Each organization's time (the sandbox's test clocks); absent: `clock` for all. */
  clocks?: Clocks | undefined;
  events: EventSink;
  /** Told, in the update's transaction, when a merchant changes a key's status (its grant follows). */
  onStatusSet?: StatusSetHook | undefined;
}

/** The public paths, for the per-address rate limit the API's assembly puts in front of them. */
export const PUBLIC_LICENSE_KEY_PATHS = [
  "/v1/customer-portal/license-keys/validate",
  "/v1/customer-portal/license-keys/activate",
  "/v1/customer-portal/license-keys/deactivate",
  "/v1/license-keys/public-key",
] as const;

export function registerLicenseKeyRoutes(app: V1App, deps: LicenseKeyRouteDeps) {
  // The organization a public call names is the only scope it has.
  const publicCtx = (organizationId: string): Ctx => ({
    organizationId,
    actor: { kind: "system", reason: "public license key endpoint" },
    db: deps.db,
    clock: deps.clocks ? deps.clocks.of(organizationId) : deps.clock,
    events: deps.events,
  });

  app.openapi(publicKey, async (c) =>
    c.json(await service.getPublicKey({ ctx: publicCtx(c.req.valid("query").organization_id) }), 200),
  );
  app.openapi(list, async (c) =>
    c.json(await service.listLicenseKeys({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(validate, async (c) =>
    c.json(await service.validateLicenseKey({ ctx: c.var.ctx, input: c.req.valid("json") }), 200),
  );
  app.openapi(activate, async (c) =>
    c.json(await service.activateLicenseKey({ ctx: c.var.ctx, input: c.req.valid("json") }), 200),
  );
  app.openapi(deactivate, async (c) => {
    await service.deactivateLicenseKey({ ctx: c.var.ctx, input: c.req.valid("json") });
    return c.body(null, 204);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getLicenseKey({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateLicenseKey({
        ctx: c.var.ctx,
        input: { id, patch: c.req.valid("json") },
        onStatusSet: deps.onStatusSet,
      }),
      200,
    );
  });
  app.openapi(getActivation, async (c) =>
    c.json(await service.getActivation({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );

  app.openapi(publicValidate, async (c) => {
    const input = c.req.valid("json");
    return c.json(await service.validateLicenseKey({ ctx: publicCtx(input.organization_id), input }), 200);
  });
  app.openapi(publicActivate, async (c) => {
    const input = c.req.valid("json");
    return c.json(await service.activateLicenseKey({ ctx: publicCtx(input.organization_id), input }), 200);
  });
  app.openapi(publicDeactivate, async (c) => {
    const input = c.req.valid("json");
    await service.deactivateLicenseKey({ ctx: publicCtx(input.organization_id), input });
    return c.body(null, 204);
  });
  app.openapi(customerList, async (c) =>
    c.json(await service.listCustomerLicenseKeys({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(customerGet, async (c) =>
    c.json(await service.getCustomerLicenseKey({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
}
