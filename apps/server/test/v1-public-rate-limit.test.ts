// Runs on both databases: Kassa's rate-limit counters in the database (kit/rate-limit, every /v1 limit).
import { describe, expect, it } from "vitest";
import { startTestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * A buyer reaches a checkout by its client secret, or a checkout link, without an account:
 * those endpoints are limited per client address (PUBLIC_RATE_LIMIT a minute), so nobody can
 * try secrets or open checkouts in bulk; the merchant's own API keeps its per-organization limit.
 */
describe("public checkout endpoints", () => {
  it("answer 429 with Retry-After past PUBLIC_RATE_LIMIT a minute per address, and nothing else is limited by it", async () => {
    const server = await startTestServer({
      inProcess: true,
      env: { RATE_LIMIT: "on", PUBLIC_RATE_LIMIT: "3" },
    });
    try {
      const merchant = await createMerchant(server);
      const token = await createToken(merchant, ["products:read"]);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      let body: unknown = null;
      for (const [method, path] of [
        ["GET", "/v1/checkouts/client/polar_c_unknown1"],
        ["GET", "/v1/checkout-links/polar_cl_unknown/redirect"],
        // A dunning mail's card link opens a session: limited the same (it was registered
        // before the limit, which then never ran for it).
        ["POST", "/v1/subscription-payment-links/session"],
        ["GET", "/v1/checkouts/client/polar_c_unknown3"],
      ]) {
        const res = await call(
          server,
          undefined,
          method as string,
          path as string,
          method === "POST" ? { subscription_id: "none", expires: "1", signature: "x" } : undefined,
        );
        statuses.push(res.status);
        if (res.status === 429) {
          retryAfter = res.headers.get("retry-after");
          body = res.body;
        }
      }
      expect(statuses.slice(0, 3)).not.toContain(429);
      expect(statuses[3]).toBe(429);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(body).toMatchObject({ error: "TooManyRequests" });
      // The confirm endpoint shares the budget; the authenticated API does not.
      expect(
        (await call(server, undefined, "POST", "/v1/checkouts/client/polar_c_x/confirm", {})).status,
      ).toBe(429);
      expect(
        (await call(server, undefined, "GET", "/v1/customer-portal/organizations/no-such-shop")).status,
      ).toBe(429);
      const link = { subscription_id: "none", expires: "1", signature: "x" };
      expect(
        (await call(server, undefined, "POST", "/v1/subscription-payment-links/session", link)).status,
      ).toBe(429);
      expect((await call(server, token, "GET", "/v1/products/")).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
