import { randomBytes } from "node:crypto";
import http from "node:http";
import { checkout, polar, portal, usage, webhooks } from "@polar-sh/better-auth";
import { Polar } from "@polar-sh/sdk";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { toNodeHandler } from "better-auth/node";
import { page } from "./page.js";

/**
 * A merchant's app as Polar's users write it: Better Auth with the `@polar-sh/better-auth`
 * plugin. The only line that knows about Kassa is `serverURL`: the plugin, the SDK and the
 * webhook verification are Polar's own, unchanged.
 */
export interface ExampleConfig {
  /** Kassa's address, e.g. http://localhost:3000 (the SDK adds /v1/...). */
  kassaUrl: string;
  /** An organization access token (`polar_oat_...`) made in Kassa's dashboard. */
  accessToken: string;
  /** The secret of the webhook endpoint pointing at this app's /api/auth/polar/webhooks. */
  webhookSecret: string;
  /** The product the "Buy" button sells (its slug in this app is "pro"). */
  productId: string;
  /** Where this app is reached, e.g. http://localhost:4000. */
  baseURL: string;
  /** Better Auth's secret; a random one when absent (sessions then end with the process). */
  secret?: string;
}

/** A webhook this app received and verified, kept in memory for the page (and the tests). */
export interface ReceivedWebhook {
  type: string;
  receivedAt: string;
  /** The customer's external id (this app's user id) when the event names one. */
  externalCustomerId: string | null;
}

export function createExampleApp(config: ExampleConfig) {
  const received: ReceivedWebhook[] = [];
  const client = new Polar({ accessToken: config.accessToken, serverURL: config.kassaUrl });
  const auth = betterAuth({
    baseURL: config.baseURL,
    secret: config.secret ?? randomBytes(32).toString("hex"),
    // An in-memory store keeps the example to one file; a real app passes its database.
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true },
    plugins: [
      polar({
        client,
        // Sign-up creates the Kassa customer and sets its external id to the user's id.
        createCustomerOnSignUp: true,
        use: [
          checkout({
            products: [{ productId: config.productId, slug: "pro" }],
            successUrl: "/?checkout_id={CHECKOUT_ID}",
            authenticatedUsersOnly: true,
          }),
          portal(),
          usage(),
          webhooks({
            secret: config.webhookSecret,
            onPayload: async (payload) => {
              received.push({
                type: payload.type,
                receivedAt: new Date().toISOString(),
                externalCustomerId: externalIdOf(payload.data),
              });
            },
          }),
        ],
      }),
    ],
  });
  const authHandler = toNodeHandler(auth);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", config.baseURL);
    if (url.pathname.startsWith("/api/auth/")) {
      authHandler(req, res).catch((error: unknown) => {
        console.error(error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    if (req.method === "GET" && url.pathname === "/webhooks-received") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(received));
      return;
    }
    if (req.method === "GET" && url.pathname === "/") {
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy":
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
      });
      res.end(page());
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not found");
  });
  return { server, auth, received };
}

/** The external customer id in a webhook's data: the customer's own, or its `customer`'s. */
function externalIdOf(data: unknown): string | null {
  if (typeof data !== "object" || data === null) return null;
  const record = data as Record<string, unknown>;
  if (typeof record.externalId === "string") return record.externalId;
  const customer = record.customer;
  if (typeof customer === "object" && customer !== null) {
    const id = (customer as Record<string, unknown>).externalId;
    if (typeof id === "string") return id;
  }
  return null;
}
