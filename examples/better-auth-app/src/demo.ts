import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Polar } from "@polar-sh/sdk";
import type { WebhookEventType } from "@polar-sh/sdk/models/components/webhookeventtype.js";
import { createExampleApp } from "./app.js";

/**
 * `npm run example` (from the repository's root): everything on one laptop, in one command.
 * Starts Kassa on its embedded database in a fresh data directory, signs a merchant up (the
 * verification link read from Kassa's development mailbox), creates the organization, an
 * access token, a monthly product and a webhook endpoint pointing at the example app, then
 * starts the example app with those values. The last line it prints, `EXAMPLE_READY {...}`,
 * is what the example's test reads.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const kassaPort = Number(process.env.KASSA_PORT ?? 3000);
const appPort = Number(process.env.PORT ?? 4000);
const kassaUrl = `http://localhost:${kassaPort}`;
const appUrl = `http://localhost:${appPort}`;
const dataDir = process.env.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), "kassa-example-"));
const merchant = {
  email: "merchant@example.com",
  password: "example merchant password",
  name: "Example Merchant",
};

async function main() {
  const entry = path.join(root, "apps/server/dist/main.js");
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run example\` from the root (it builds first)`);
  const kassa = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      PORT: String(kassaPort),
      BASE_URL: kassaUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const stop = () => kassa.kill("SIGTERM");
  process.once("exit", stop);
  await waitFor(kassa, `${kassaUrl}/api/auth/ok`);

  const cookie = await signUpMerchant();
  const organization = await post<{ id: string; slug: string }>(
    "/api/auth/organization/create",
    { name: "Example Store", slug: `example-store-${Date.now().toString(36)}` },
    cookie,
  );
  const { token } = await post<{ token: string }>(
    `/v1/organization-access-tokens/?organization_id=${organization.id}`,
    { comment: "example app", scopes: SCOPES },
    cookie,
  );
  const polar = new Polar({ accessToken: token, serverURL: kassaUrl });
  const product = await polar.products.create({
    name: "Pro",
    description: "Everything in the example app, billed monthly.",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
  });
  // Usage: a meter counting the app's "api_call" events, and 100 of them a month with Pro.
  const meter = await polar.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
    aggregation: { func: "count" },
  });
  const credits = await polar.benefits.create({
    type: "meter_credit",
    description: "100 API calls a month",
    properties: { units: 100, rollover: false, meterId: meter.id },
  });
  await polar.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [credits.id] } });
  const endpoint = await polar.webhooks.createWebhookEndpoint({
    url: `${appUrl}/api/auth/polar/webhooks`,
    format: "raw",
    events: WEBHOOK_EVENTS,
  });

  const { server } = createExampleApp({
    kassaUrl,
    accessToken: token,
    webhookSecret: endpoint.secret,
    productId: product.id,
    baseURL: appUrl,
  });
  await new Promise<void>((resolve) => server.listen(appPort, resolve));
  process.once("SIGINT", () => process.exit(0));
  process.once("SIGTERM", () => process.exit(0));
  console.log(`
Kassa:        ${kassaUrl}  (dashboard: sign in as ${merchant.email} / ${merchant.password})
Example app:  ${appUrl}    (sign up as a buyer, buy Pro with the sandbox card, open the portal)
Data:         ${dataDir}
`);
  console.log(
    `EXAMPLE_READY ${JSON.stringify({
      kassaUrl,
      appUrl,
      token,
      organizationId: organization.id,
      organizationSlug: organization.slug,
      productId: product.id,
      meterId: meter.id,
    })}`,
  );
}

const SCOPES = [
  "products:read",
  "products:write",
  "customers:read",
  "customers:write",
  "checkouts:read",
  "checkouts:write",
  "customer_sessions:write",
  "subscriptions:read",
  "orders:read",
  "benefits:read",
  "events:read",
  "events:write",
  "meters:read",
  "meters:write",
  "customer_meters:read",
  "webhooks:read",
  "webhooks:write",
  "benefits:write",
];

const WEBHOOK_EVENTS: WebhookEventType[] = [
  "checkout.updated",
  "customer.created",
  "customer.updated",
  "customer.state_changed",
  "order.created",
  "order.paid",
  "subscription.created",
  "subscription.active",
  "subscription.updated",
  "subscription.canceled",
  "subscription.revoked",
  "benefit_grant.created",
];

/** Signs the merchant up, follows the verification link from the mailbox, signs in. */
async function signUpMerchant(): Promise<string> {
  await post("/api/auth/sign-up/email", merchant);
  const mailbox = await get<{ items: { links: string[] }[] }>(
    `/api/dev/mailbox?to=${encodeURIComponent(merchant.email)}`,
  );
  const link = mailbox.items[0]?.links.find((l) => l.includes("verify-email"));
  if (!link) throw new Error("no verification mail in Kassa's development mailbox");
  await fetch(link, { redirect: "manual" });
  const res = await fetch(`${kassaUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: kassaUrl },
    body: JSON.stringify({ email: merchant.email, password: merchant.password }),
  });
  if (!res.ok) throw new Error(`merchant sign-in: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

async function post<T = unknown>(pathname: string, body: unknown, cookie?: string): Promise<T> {
  const res = await fetch(`${kassaUrl}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: kassaUrl, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function get<T>(pathname: string): Promise<T> {
  const res = await fetch(`${kassaUrl}${pathname}`);
  if (!res.ok) throw new Error(`GET ${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function waitFor(child: ChildProcess, url: string) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`Kassa exited (${child.exitCode}) before it was ready`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Kassa did not answer ${url} within a minute`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
