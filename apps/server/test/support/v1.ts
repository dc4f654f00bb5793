import { Polar } from "@polar-sh/sdk";
import { expect } from "vitest";
import type { Json } from "./client.js";
import type { TestServer } from "./server.js";
import { createUser, type TestUser } from "./users.js";

let counter = 0;

export interface Merchant {
  owner: TestUser;
  organizationId: string;
  slug: string;
}

/** A signed-in owner and a new organization (through Better Auth, as the dashboard does). */
export async function createMerchant(
  server: Pick<TestServer, "url" | "sql">,
  name = "Acme",
): Promise<Merchant> {
  const owner = await createUser(server);
  counter += 1;
  const slug = `m-${Date.now().toString(36)}-${counter}`;
  const res = await owner.client.post("/api/auth/organization/create", { name, slug });
  if (res.status !== 200) throw new Error(`organization create failed: ${res.status} ${res.text}`);
  return { owner, organizationId: res.body.id, slug };
}

/** Adds a signed-in user to the organization with the given role. */
export async function addMember(
  server: Pick<TestServer, "url" | "sql">,
  merchant: Merchant,
  role: string,
): Promise<TestUser> {
  const user = await createUser(server);
  await server.sql(
    `insert into "member" (id, "organizationId", "userId", role, "createdAt") values (gen_random_uuid()::text, $1, $2, $3, now())`,
    merchant.organizationId,
    user.id,
    role,
  );
  return user;
}

/** Creates an organization access token through the API as the owner; returns the token. */
export async function createToken(merchant: Merchant, scopes: string[], comment = "test"): Promise<string> {
  const res = await merchant.owner.client.post(
    `/v1/organization-access-tokens/?organization_id=${merchant.organizationId}`,
    { comment, scopes },
  );
  if (res.status !== 201) throw new Error(`token create failed: ${res.status} ${res.text}`);
  return (res.body as Json).token;
}

export function sdk(server: Pick<TestServer, "url">, accessToken: string): Polar {
  return new Polar({ accessToken, serverURL: server.url });
}

/** Raw HTTP with a bearer token. */
export async function call(
  server: Pick<TestServer, "url">,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * `call`, expecting its status (201 for a POST, 200 otherwise, unless given; the answer's body in
 * the failure's message), answering the body.
 */
export async function expectCall(
  server: Pick<TestServer, "url">,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  status = method === "POST" ? 201 : 200,
): Promise<Json> {
  const res = await call(server, token, method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body as Json;
}

/** The sandbox's test card that always succeeds. */
export const GOOD_CARD = "4242424242424242";

/** A sandbox confirmation token for the test card `number` (expects 201); answers its id. */
export async function sandboxCardToken(server: Pick<TestServer, "url">, number = GOOD_CARD): Promise<string> {
  const card = await expectCall(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: number,
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  return card.id as string;
}

/**
 * Confirms the checkout whose client secret is `clientSecret` as the hosted page does: the
 * buyer's `fields` (billing address, name, e-mail) and a sandbox token of the card `number`
 * (expects 200); answers the confirm's body (with its `customer_session_token`).
 */
export async function confirmWithCard(
  server: Pick<TestServer, "url">,
  clientSecret: string,
  fields: Json,
  number = GOOD_CARD,
): Promise<Json> {
  const confirmation_token_id = await sandboxCardToken(server, number);
  return expectCall(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${clientSecret}/confirm`,
    { ...fields, confirmation_token_id },
    200,
  );
}

/**
 * A checkout of `productId` for `email`, paid with the sandbox's good test card from France
 * (expects 201 and 200); answers the checkout as created.
 */
export async function payByCard(
  server: Pick<TestServer, "url">,
  token: string,
  productId: string,
  email: string,
): Promise<Json> {
  const checkout = await expectCall(server, token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
  });
  await confirmWithCard(server, checkout.client_secret as string, {
    customer_billing_address: { country: "FR" },
  });
  return checkout;
}

export const ALL_WRITE_SCOPES = [
  "organizations:read",
  "organizations:write",
  "organization_access_tokens:read",
  "organization_access_tokens:write",
  "products:read",
  "products:write",
  "benefits:read",
  "benefits:write",
  "meters:read",
  "meters:write",
  "custom_fields:read",
  "custom_fields:write",
  "discounts:read",
  "discounts:write",
];

/** A merchant with a token and a raw-format webhook endpoint at `{receiverUrl}{path}`. */
export interface Shop {
  merchant: Merchant;
  token: string;
  /** The endpoint's signing secret, to verify what it receives. */
  secret: string;
  /** The receiver path of the endpoint: the shop's name in lower case, so shops of one file never mix. */
  path: string;
}

/**
 * A new organization with a token holding `scopes` and a webhook endpoint for `events` at the
 * receiver, under a path named after the shop: the set-up of the suites that follow a purchase's
 * webhooks.
 */
export async function createShop(
  server: Pick<TestServer, "url" | "sql">,
  receiverUrl: string,
  name: string,
  opts: { scopes: string[]; events: string[] },
): Promise<Shop> {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, [...new Set([...opts.scopes, "webhooks:write"])]);
  const path = `/${name.toLowerCase()}`;
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiverUrl}${path}`,
    format: "raw",
    events: opts.events,
  });
  if (ep.status !== 201)
    throw new Error(`webhook endpoint create failed: ${ep.status} ${JSON.stringify(ep.body)}`);
  return { merchant, token, secret: ep.body.secret, path };
}
