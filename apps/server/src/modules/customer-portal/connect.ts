import { randomBytes } from "node:crypto";
import { createRoute, z } from "@hono/zod-openapi";
import { CustomerOAuthAuthorizeResponse, CustomerOAuthPlatform } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { NotPermitted, RequestValidationError } from "../../kit/api/errors.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import type { Ctx, Db } from "../../kit/context.js";
import { grantAwaitingAccount } from "../benefit-grants/index.js";
import { findCustomer } from "../customers/index.js";
import { type Connections, claimConnectState, type OAuthPlatform } from "../oauth-accounts/index.js";
import { findOrganization } from "../organizations/index.js";
import { callerOf } from "./caller.js";

/** How long a connect may take between the authorize answer and the callback. */
const STATE_TTL_SECONDS = 600;
const CALLBACK_PATH = "/v1/customer-portal/oauth-accounts/callback";
const NAMES: Record<OAuthPlatform, string> = { github: "GitHub", discord: "Discord" };
/** The benefit type each platform's account serves. */
const BENEFIT_TYPE: Record<OAuthPlatform, string> = { github: "github_repository", discord: "discord" };

export interface ConnectDeps {
  db: Db;
  connections: Connections | undefined;
  baseURL: string;
}

/**
 * `GET /v1/customer-portal/oauth-accounts/authorize` (Polar's): the provider's authorization
 * URL for the signed-in customer, with a signed `state` naming them, the platform and where to
 * come back (an address of this server; by default the organization's portal), valid 10 minutes.
 */
export async function authorize(
  deps: ConnectDeps,
  { ctx, input }: { ctx: Ctx; input: { platform: OAuthPlatform; return_to?: string | undefined } },
) {
  const caller = callerOf(ctx);
  const client = deps.connections?.oauth[input.platform];
  if (!deps.connections || !client)
    throw RequestValidationError.field(
      ["query", "platform"],
      `${NAMES[input.platform]} accounts cannot be connected: this Kassa server has no ${NAMES[input.platform]} app configured.`,
      input.platform,
    );
  let returnTo: string;
  if (input.return_to !== undefined) {
    const target = URL.canParse(input.return_to, deps.baseURL)
      ? new URL(input.return_to, deps.baseURL)
      : null;
    if (!target || target.origin !== new URL(deps.baseURL).origin)
      throw RequestValidationError.field(
        ["query", "return_to"],
        "Must be an address of this Kassa server.",
        input.return_to,
      );
    returnTo = target.toString();
  } else {
    const organization = await findOrganization(ctx.db, caller.organizationId);
    returnTo = `${deps.baseURL}/portal/${organization?.slug ?? ""}`;
  }
  const state = deps.connections.state.sign({
    platform: input.platform,
    organization_id: caller.organizationId,
    customer_id: caller.customerId,
    return_to: returnTo,
    nonce: randomBytes(18).toString("base64url"),
    exp: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
  });
  return { url: client.authorizeUrl(`${deps.baseURL}${CALLBACK_PATH}`, state) };
}

function withParams(url: string, params: Record<string, string>) {
  const target = new URL(url);
  for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
  return target.toString();
}

/**
 * `GET /v1/customer-portal/oauth-accounts/callback` (Polar's): the provider sends the customer
 * back here. The state must be this server's, unaltered, fresh and not used before (else 403:
 * a state works for one callback, even when two arrive at once); the code is
 * exchanged, the provider's user read and stored as the customer's account, and their grants
 * waiting for it are granted again; then back to `return_to` (with `error` and
 * `error_platform` when something failed on the way, as Polar does).
 */
export async function callback(
  deps: ConnectDeps,
  input: { state: string; code?: string | undefined; error?: string | undefined },
): Promise<{ redirect: string; status: 303 | 307 }> {
  const connections = deps.connections;
  const state = connections?.state.verify(input.state, new Date());
  if (!connections || !state) throw new NotPermitted("Invalid state");
  const customer = await findCustomer(deps.db, state.organization_id, state.customer_id);
  if (!customer) throw new NotPermitted("Invalid customer");
  if (!(await claimConnectState(deps.db, state, new Date())))
    throw new NotPermitted(
      "This connection was already completed with this state. Start again from the portal to connect another account.",
    );
  const platform = state.platform;
  const client = connections.oauth[platform];
  const failed = (error: string) => ({
    redirect: withParams(state.return_to, { error, error_platform: platform }),
    status: 303 as const,
  });
  if (!client) return failed("Failed to authorize.");
  if (input.code === undefined || input.error !== undefined)
    return failed(input.error ?? "Failed to authorize.");
  const redirectUri = `${deps.baseURL}${CALLBACK_PATH}`;
  const tokens = await client.exchange(input.code, redirectUri).catch(() => undefined);
  if (!tokens) return failed("Failed to get access token. Please try again later.");
  const profile = await client.profile(tokens.accessToken).catch(() => undefined);
  if (!profile) return failed("Failed to get profile information. Please try again later.");
  const now = new Date();
  await deps.db.transaction().execute(async (trx) => {
    await connections.save(trx, {
      organizationId: state.organization_id,
      customerId: state.customer_id,
      platform,
      tokens,
      profile,
      now,
    });
    await grantAwaitingAccount(trx, {
      organizationId: state.organization_id,
      customerId: state.customer_id,
      benefitType: BENEFIT_TYPE[platform],
      accountId: profile.id,
      now,
    });
  });
  return { redirect: state.return_to, status: 307 };
}

const authorizeRoute = customerRoute({
  method: "get",
  path: "/v1/customer-portal/oauth-accounts/authorize",
  tags: ["customer_portal"],
  summary: "Start connecting the authenticated customer's GitHub or Discord account",
  description:
    "Answers the provider's authorization URL; its `state` is signed and valid 10 minutes. `return_to` must be an address of this server (default: the organization's portal).",
  request: { query: z.object({ platform: CustomerOAuthPlatform, return_to: z.string().optional() }) },
  responses: {
    200: {
      description: "Successful Response",
      content: { "application/json": { schema: CustomerOAuthAuthorizeResponse } },
    },
    ...errorResponses(),
  },
});

const callbackRoute = createRoute({
  method: "get",
  path: CALLBACK_PATH,
  tags: ["customer_portal"],
  summary: "Where GitHub or Discord sends the customer back after they authorized",
  description:
    "No authentication: the signed `state` names the customer; it works once. Redirects to the `return_to` of the authorize request.",
  request: {
    query: z.object({ state: z.string(), code: z.string().optional(), error: z.string().optional() }),
  },
  responses: {
    303: { description: "Back to the portal, with `error` and `error_platform`" },
    307: { description: "Back to the portal, the account connected" },
    403: {
      description: "The state is not this server's, was altered, has expired or was already used",
      content: {
        "application/json": { schema: z.object({ error: z.literal("NotPermitted"), detail: z.string() }) },
      },
    },
  },
});

export function registerPortalConnectRoutes(app: V1App, deps: ConnectDeps) {
  app.openapi(authorizeRoute, async (c) =>
    c.json(await authorize(deps, { ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(callbackRoute, async (c) => {
    const { redirect, status } = await callback(deps, c.req.valid("query"));
    return c.redirect(redirect, status);
  });
}
