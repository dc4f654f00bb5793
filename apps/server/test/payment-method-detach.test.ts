// Runs on PostgreSQL only: a card's delete held at the processor while the same card is made the default, by a second connection's row lock.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, confirmWithCard, createMerchant, createToken, sandboxCardToken } from "./support/v1.js";

/**
 * The portal's delete of a saved card and its "make this card the default", at once. The delete
 * checks that no subscription pays with the card, then detaches it at the processor; a default
 * that read the card as the customer's before the detach used to point the subscription at it
 * after the check, and the renewals then charged a card the processor no longer had (a failed
 * renewal, dunning). The moment is arranged by holding the processor's row of the card, on which
 * the delete's detach waits once its check is done.
 */

let server: TestServer & { database?: TestDatabase };
let token: string;

if (TEST_DB === "postgres") {
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
    const merchant = await createMerchant(server, "Cards");
    token = await createToken(merchant, ["products:write", "checkouts:write", "subscriptions:read"]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  describe("a card deleted while it is made the default", () => {
    it("is refused as the default once its delete has begun; the subscription keeps paying with its card", async () => {
      const product = await call(server, token, "POST", "/v1/products/", {
        name: "Monthly",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1500 }],
      });
      expect(product.status, JSON.stringify(product.body)).toBe(201);
      const checkout = await call(server, token, "POST", "/v1/checkouts/", {
        products: [product.body.id],
        customer_email: "cards@example.com",
      });
      expect(checkout.status).toBe(201);
      const confirmed = await confirmWithCard(server, checkout.body.client_secret, {
        customer_billing_address: { country: "FR" },
      });
      const portal = confirmed.customer_session_token as string;
      const [subscription] = await server.sql<{ id: string; payment_method_id: string }>(
        "select id, payment_method_id from kassa_subscription where checkout_id = $1",
        checkout.body.id,
      );
      const paying = subscription!.payment_method_id;
      const saved = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
        confirmation_token_id: await sandboxCardToken(server, "5555555555554444"),
        set_default: false,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      const card = saved.body.payment_method.id as string;

      const holder = new pg.Client({ connectionString: server.database?.env.DATABASE_URL });
      await holder.connect();
      let deleted: { status: number };
      let made: { status: number; body: { error?: string } };
      try {
        await holder.query("begin");
        await holder.query("select id from kassa_sandbox_payment_method where id = $1 for update", [card]);
        const deleting = call(
          server,
          portal,
          "DELETE",
          `/v1/customer-portal/customers/me/payment-methods/${card}`,
        );
        // The delete has checked the subscriptions and waits to detach the card.
        await until(async () => {
          const waiting = await holder.query<{ n: number }>(
            `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
             where not l.granted and a.datname = current_database()`,
          );
          return (waiting.rows[0]?.n ?? 0) > 0;
        });
        // The processor still lists the card as the customer's.
        made = await call(
          server,
          portal,
          "POST",
          `/v1/customer-portal/customers/me/payment-methods/${card}/default`,
        );
        await holder.query("commit");
        deleted = await deleting;
      } finally {
        await holder.end();
      }
      expect(deleted.status).toBe(204);
      expect(made.status, JSON.stringify(made.body)).toBe(404);
      const [after] = await server.sql<{ payment_method_id: string }>(
        "select payment_method_id from kassa_subscription where id = $1",
        subscription!.id,
      );
      expect(after!.payment_method_id).toBe(paying);
      const cards = await call(server, portal, "GET", "/v1/customer-portal/customers/me/payment-methods");
      expect(cards.body.items.map((m: { id: string }) => m.id)).toEqual([paying]);

      // A delete that does not happen leaves the card free to be the default.
      const other = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
        confirmation_token_id: await sandboxCardToken(server, "4000056655665556"),
        set_default: false,
      });
      expect(other.status, JSON.stringify(other.body)).toBe(201);
      const third = other.body.payment_method.id as string;
      const inUseElsewhere = await call(
        server,
        portal,
        "DELETE",
        `/v1/customer-portal/customers/me/payment-methods/${paying}`,
      );
      expect(inUseElsewhere.status).toBe(400);
      const defaulted = await call(
        server,
        portal,
        "POST",
        `/v1/customer-portal/customers/me/payment-methods/${third}/default`,
      );
      expect(defaulted.status, JSON.stringify(defaulted.body)).toBe(200);
      const [now] = await server.sql<{ payment_method_id: string }>(
        "select payment_method_id from kassa_subscription where id = $1",
        subscription!.id,
      );
      expect(now!.payment_method_id).toBe(third);
    });
  });
}
