import { expect } from "vitest";
import type { Json } from "./client.js";
import type { TestServer } from "./server.js";
import { call, confirmWithCard } from "./v1.js";

/** The call's body, once its status is `status` (the body shown when it is not). */
export async function ok(promise: Promise<{ status: number; body: Json }>, status = 200) {
  const res = await promise;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/** `read()` again until `check` passes on its value (a grant synced by a job), or throws its last failure. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => void,
  timeoutMs = 20_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * A purchase of `productId` by a new buyer through the sandbox checkout (the good test card, from
 * France): its order, its customer, and the customer session token the confirm answers.
 */
export async function buyWithCard(server: Pick<TestServer, "url">, token: string, productId: string) {
  const c = await ok(
    call(server, token, "POST", "/v1/checkouts/", {
      products: [productId],
      customer_email: `buyer-${Math.random().toString(36).slice(2)}@example.com`,
    }),
    201,
  );
  const done = await confirmWithCard(server, c.client_secret as string, {
    customer_billing_address: { country: "FR" },
  });
  const checkout = await ok(call(server, token, "GET", `/v1/checkouts/${c.id}`));
  const orders = await ok(call(server, token, "GET", `/v1/orders/?customer_id=${checkout.customer_id}`));
  return {
    orderId: orders.items[0].id as string,
    customerId: checkout.customer_id as string,
    portalToken: done.customer_session_token as string,
  };
}
