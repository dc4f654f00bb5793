// Runs on both databases: single-use tokens, idempotency keys and refunds under parallel calls.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerApiError, startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, type Merchant } from "./support/v1.js";

/**
 * The sandbox payment processor (issue 5, "Payment processors"): the public token endpoint
 * the checkout page uses, and the processor interface as checkouts, renewals and refunds will
 * call it, inside a real server on the suite's database.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
});
afterAll(() => server?.stop());

const TOKENS = "/v1/sandbox/confirmation-tokens";
const nextYear = new Date().getUTCFullYear() + 1;

type Json = Record<string, unknown>;

async function token(cardNumber: string, extra: Json = {}): Promise<string> {
  const res = await call(server, undefined, "POST", TOKENS, {
    card_number: cardNumber,
    exp_month: 12,
    exp_year: nextYear,
    cvc: "123",
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const processor = <T = Json>(method: string, args: Json) => server.payments<T>("processor", method, args);

async function customer(m: Merchant = acme): Promise<string> {
  const c = await processor<{ id: string }>("createCustomer", {
    organizationId: m.organizationId,
    email: "buyer@example.test",
    name: "Buyer",
    idempotencyKey: randomUUID(),
  });
  return c.id;
}

async function charge(customerId: string, source: Json, extra: Json = {}, m: Merchant = acme) {
  return processor<Json>("charge", {
    organizationId: m.organizationId,
    amount: 1000,
    currency: "usd",
    customerId,
    source,
    idempotencyKey: randomUUID(),
    ...extra,
  });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error("expected the processor to refuse the request");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServerApiError);
  return String((error as ServerApiError).status);
}

describe("sandbox confirmation tokens (POST /v1/sandbox/confirmation-tokens)", () => {
  it("turns a test card into a single-use token, keeping only the brand, the last 4 digits and the expiry", async () => {
    const res = await call(server, undefined, "POST", TOKENS, {
      card_number: "4242 4242 4242 4242",
      exp_month: 4,
      exp_year: nextYear,
      cvc: "314",
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^ctoken_sbx_[A-Za-z0-9_-]{32}$/);
    expect(res.body.card).toEqual({ brand: "visa", last4: "4242", exp_month: 4, exp_year: nextYear });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now());
    const rows = await server.sql(
      "select * from kassa_sandbox_confirmation_token where id = $1",
      res.body.id,
    );
    expect(rows[0]).toMatchObject({ brand: "visa", last4: "4242", exp_month: 4, exp_year: nextYear });
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain("4242424242424242");
    expect(stored).not.toContain("314");
  });

  it("accepts camelCase and a two-digit year, and recognizes the brand", async () => {
    const res = await call(server, undefined, "POST", TOKENS, {
      cardNumber: "5555-5555-5555-4444",
      expMonth: "12",
      expYear: nextYear % 100,
      cvc: "1234",
    });
    expect(res.status).toBe(201);
    const rows = await server.sql(
      "select brand, last4, exp_year from kassa_sandbox_confirmation_token where id = $1",
      res.body.id,
    );
    expect(rows[0]).toEqual({ brand: "mastercard", last4: "4444", exp_year: nextYear });
  });

  const bad: [string, Json, string, string][] = [
    [
      "a number failing the Luhn check",
      { card_number: "4242 4242 4242 4241" },
      "card_number",
      "Your card number is invalid.",
    ],
    [
      "letters in the number",
      { card_number: "4242 abcd 4242 4242" },
      "card_number",
      "Your card number is invalid.",
    ],
    [
      "a real card number that is not a test card",
      { card_number: "4111 1111 1111 1111" },
      "card_number",
      "The sandbox accepts test cards only, such as 4242 4242 4242 4242.",
    ],
    [
      "an expiry year in the past",
      { exp_year: 2020 },
      "exp_year",
      "Your card's expiration date is in the past.",
    ],
    [
      "a month that does not exist",
      { exp_month: 13 },
      "exp_month",
      "Your card's expiration month is invalid.",
    ],
    ["a CVC of 2 digits", { cvc: "12" }, "cvc", "Your card's security code is invalid."],
    ["a CVC of 5 digits", { cvc: "12345" }, "cvc", "Your card's security code is invalid."],
    ["a CVC with letters", { cvc: "1a3" }, "cvc", "Your card's security code is invalid."],
  ];
  for (const [what, patch, field, msg] of bad) {
    it(`refuses ${what} with a 422 naming ${field}, storing nothing`, async () => {
      const [before] = await server.sql<{ n: number }>(
        "select count(*)::int as n from kassa_sandbox_confirmation_token",
      );
      const res = await call(server, undefined, "POST", TOKENS, {
        card_number: "4242424242424242",
        exp_month: 12,
        exp_year: nextYear,
        cvc: "123",
        ...patch,
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ["body", field], msg })]);
      expect(JSON.stringify(res.body)).not.toContain("4242424242424242");
      const [after] = await server.sql<{ n: number }>(
        "select count(*)::int as n from kassa_sandbox_confirmation_token",
      );
      expect(after?.n).toBe(before?.n);
    });
  }

  it("refuses an expiry month earlier in the current year, naming exp_month", async () => {
    const now = new Date();
    if (now.getUTCMonth() === 0) return; // January: no earlier month this year to try
    const res = await call(server, undefined, "POST", TOKENS, {
      card_number: "4242424242424242",
      exp_month: now.getUTCMonth(),
      exp_year: now.getUTCFullYear(),
      cvc: "123",
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ["body", "exp_month"],
      msg: "Your card's expiration date is in the past.",
    });
  });

  it("never echoes a card number or CVC in a shape error", async () => {
    const res = await call(server, undefined, "POST", TOKENS, {
      card_number: "4242 4242 4242 4242 4242 4242 4242 4242 4242 42",
      exp_month: 12,
      exp_year: nextYear,
      cvc: 12345678901,
    });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs.sort()).toEqual(["body.card_number", "body.cvc"]);
    expect(res.body.detail.every((d: { input: unknown }) => d.input === null)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain("4242 4242");
    expect(JSON.stringify(res.body)).not.toContain("12345678901");
  });

  it("is in the OpenAPI document", async () => {
    const doc = await call(server, undefined, "GET", "/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain(TOKENS);
  });

  it("names every missing field", async () => {
    const res = await call(server, undefined, "POST", TOKENS, { card_number: "4242424242424242" });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs.sort()).toEqual(["body.cvc", "body.exp_month", "body.exp_year"]);
  });
});

describe("charging with the sandbox's test cards", () => {
  const outcomes: [string, string, string | null, string | null][] = [
    ["4242424242424242", "succeeded", null, null],
    ["5555555555554444", "succeeded", null, null],
    ["378282246310005", "succeeded", null, null],
    ["4000000000000002", "failed", "generic_decline", "Your card was declined."],
    ["4000000000009995", "failed", "insufficient_funds", "Your card has insufficient funds."],
    ["4000000000000341", "failed", "generic_decline", "Your card was declined."],
    ["4000000000009987", "failed", "lost_card", "Your card was declined."],
    ["4000000000000069", "failed", "expired_card", "Your card has expired."],
    ["4000000000000127", "failed", "incorrect_cvc", "Your card's security code is incorrect."],
  ];
  for (const [number, status, code, message] of outcomes) {
    it(`${number}: ${status}${code ? ` (${code})` : ""}`, async () => {
      const cus = await customer();
      const result = await charge(cus, {
        confirmationTokenId: await token(number, number.length === 15 ? { cvc: "1234" } : {}),
      });
      expect(result.status).toBe(status);
      if (status === "succeeded") {
        expect(result).toMatchObject({
          amount: 1000,
          currency: "usd",
          paymentMethod: { last4: number.slice(-4) },
        });
      } else {
        expect(result).toMatchObject({ declineCode: code, message });
      }
      const rows = await server.sql(
        "select status, decline_code, failure_message, amount from kassa_sandbox_charge where id = $1",
        result.chargeId as string,
      );
      expect(rows[0]).toEqual({ status, decline_code: code, failure_message: message, amount: 1000 });
    });
  }

  it("consumes a token once: a second use is refused, even by 10 parallel charges", async () => {
    const cus = await customer();
    const used = await token("4242424242424242");
    expect((await charge(cus, { confirmationTokenId: used })).status).toBe("succeeded");
    expect(await refusal(charge(cus, { confirmationTokenId: used }))).toBe("token_used");
    expect(
      await refusal(
        processor("savePaymentMethod", {
          organizationId: acme.organizationId,
          customerId: cus,
          confirmationTokenId: used,
          idempotencyKey: randomUUID(),
        }),
      ),
    ).toBe("token_used");

    const raced = await token("4242424242424242");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => charge(cus, { confirmationTokenId: raced })),
    );
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    expect(fulfilled).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect((r.reason as ServerApiError).status).toBe("token_used");
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(n?.n).toBe(2);
  });

  it("refuses an unknown token, an unknown customer, and another organization's customer", async () => {
    const cus = await customer();
    expect(await refusal(charge(cus, { confirmationTokenId: "ctoken_sbx_nope" }))).toBe("token_invalid");
    expect(
      await refusal(charge("cus_sbx_nope", { confirmationTokenId: await token("4242424242424242") })),
    ).toBe("customer_not_found");
    const tok = await token("4242424242424242");
    expect(await refusal(charge(cus, { confirmationTokenId: tok }, {}, other))).toBe("customer_not_found");
    expect(
      await processor("findCustomer", { organizationId: other.organizationId, customerId: cus }),
    ).toBeNull();
    expect(
      await processor("findCustomer", { organizationId: acme.organizationId, customerId: cus }),
    ).toMatchObject({
      id: cus,
      email: "buyer@example.test",
    });
    // the refused charges left the token usable
    expect((await charge(cus, { confirmationTokenId: tok })).status).toBe("succeeded");
  });

  it("an idempotency key returns the same charge, once, even to 20 parallel calls; other parameters are refused", async () => {
    const cus = await customer();
    const tok = await token("4242424242424242");
    const key = randomUUID();
    const args = { source: { confirmationTokenId: tok }, idempotencyKey: key };
    const results = await Promise.all(Array.from({ length: 20 }, () => charge(cus, {}, args).then((r) => r)));
    const ids = new Set(results.map((r) => r.chargeId));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.status === "succeeded")).toBe(true);
    const again = await charge(cus, {}, args);
    expect(again.chargeId).toBe(results[0]?.chargeId);
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(n?.n).toBe(1);
    expect(await refusal(charge(cus, {}, { ...args, amount: 999 }))).toBe("idempotency_key_reused");
  });

  it("20 parallel calls under one key with 20 tokens: one charge, 19 refusals, and the 19 tokens left usable", async () => {
    const cus = await customer();
    const key = randomUUID();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => token("4242424242424242")));
    const settled = await Promise.allSettled(
      tokens.map((tok) => charge(cus, { confirmationTokenId: tok }, { idempotencyKey: key })),
    );
    const charged = settled.filter((s) => s.status === "fulfilled");
    expect(charged).toHaveLength(1);
    const refused = settled
      .filter((s) => s.status === "rejected")
      .map((s) => (s.reason as ServerApiError).status);
    expect(refused).toEqual(Array(19).fill("idempotency_key_reused"));
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(n?.n).toBe(1);
    const usedToken = tokens[settled.findIndex((s) => s.status === "fulfilled")];
    const unused = tokens.filter((t) => t !== usedToken);
    const again = await Promise.all(unused.map((tok) => charge(cus, { confirmationTokenId: tok })));
    expect(again.map((r) => r.status)).toEqual(Array(19).fill("succeeded"));
  });

  it("20 parallel customer creations under one key make one customer, and each call answers it", async () => {
    const key = randomUUID();
    const args = {
      organizationId: acme.organizationId,
      email: "same@example.test",
      name: "Same",
      idempotencyKey: key,
    };
    const created = await Promise.all(
      Array.from({ length: 20 }, () => processor<{ id: string }>("createCustomer", args)),
    );
    expect(new Set(created.map((c) => c.id)).size).toBe(1);
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_customer where organization_id = $1 and email = $2",
      acme.organizationId,
      "same@example.test",
    );
    expect(n?.n).toBe(1);
    expect(await refusal(processor("createCustomer", { ...args, name: "Other" }))).toBe(
      "idempotency_key_reused",
    );
  });

  it("the same parameters in another key order are the same request; bad amounts and currencies are refused", async () => {
    const cus = await customer();
    const key = randomUUID();
    const source = { confirmationTokenId: await token("4242424242424242") };
    const first = await charge(cus, source, { idempotencyKey: key, metadata: { a: 1, b: "two" } });
    const again = await charge(cus, source, { idempotencyKey: key, metadata: { b: "two", a: 1 } });
    expect(again.chargeId).toBe(first.chargeId);
    const tok = { confirmationTokenId: await token("4242424242424242") };
    expect(await refusal(charge(cus, tok, { amount: 0 }))).toBe("invalid_request");
    expect(await refusal(charge(cus, tok, { amount: 10.5 }))).toBe("invalid_request");
    expect(await refusal(charge(cus, tok, { currency: "USD" }))).toBe("invalid_request");
    // none of them used the token
    expect((await charge(cus, tok)).status).toBe("succeeded");
  });

  it("a declined answer is replayed for its key too", async () => {
    const cus = await customer();
    const args = {
      source: { confirmationTokenId: await token("4000000000000002") },
      idempotencyKey: randomUUID(),
    };
    const first = await charge(cus, {}, args);
    expect(first).toMatchObject({ status: "failed", declineCode: "generic_decline" });
    expect(await charge(cus, {}, args)).toEqual(first);
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(n?.n).toBe(1);
  });
});

describe("finding what a key did (findPayment, the reconciler's question)", () => {
  it("answers a charge, a decline and a setup by their keys, and another organization's key as none", async () => {
    const cus = await customer();
    const paid = await charge(
      cus,
      { confirmationTokenId: await token("4242424242424242") },
      {
        idempotencyKey: "checkout:paid:1",
      },
    );
    expect(
      await processor("findPayment", {
        organizationId: acme.organizationId,
        idempotencyKey: "checkout:paid:1",
      }),
    ).toEqual({ status: "succeeded", chargeId: paid.chargeId, paymentMethod: paid.paymentMethod });
    await charge(
      cus,
      { confirmationTokenId: await token("4000000000000002") },
      { idempotencyKey: "checkout:declined:1" },
    );
    expect(
      await processor("findPayment", {
        organizationId: acme.organizationId,
        idempotencyKey: "checkout:declined:1",
      }),
    ).toEqual({ status: "failed", declineCode: "generic_decline", message: "Your card was declined." });
    const setup = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: await token("4242424242424242"),
      idempotencyKey: "checkout:setup:1",
    });
    expect(
      await processor("findPayment", {
        organizationId: acme.organizationId,
        idempotencyKey: "checkout:setup:1",
      }),
    ).toEqual({ status: "succeeded", chargeId: null, paymentMethod: setup.paymentMethod });
    expect(
      await processor("findPayment", {
        organizationId: other.organizationId,
        idempotencyKey: "checkout:paid:1",
      }),
    ).toEqual({ status: "none" });
  });

  it("an unused key answers none and is closed: a charge arriving later under it is refused and moves no money", async () => {
    const cus = await customer();
    const lookups = await Promise.all(
      Array.from({ length: 5 }, () =>
        processor("findPayment", { organizationId: acme.organizationId, idempotencyKey: "checkout:late:1" }),
      ),
    );
    expect(lookups).toEqual(Array.from({ length: 5 }, () => ({ status: "none" })));
    const tok = await token("4242424242424242");
    expect(
      await refusal(charge(cus, { confirmationTokenId: tok }, { idempotencyKey: "checkout:late:1" })),
    ).toBe("idempotency_key_reused");
    const [n] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(n?.n).toBe(0);
    // The token was not used up by the refused call.
    expect((await charge(cus, { confirmationTokenId: tok })).status).toBe("succeeded");
  });
});

describe("saved payment methods and off-session charges", () => {
  it("saves a card without charging it and charges it later off session", async () => {
    const cus = await customer();
    const saved = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: await token("4242424242424242"),
      idempotencyKey: randomUUID(),
    });
    expect(saved).toMatchObject({ status: "succeeded", paymentMethod: { brand: "visa", last4: "4242" } });
    const pm = (saved.paymentMethod as { id: string }).id;
    const [charges] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where customer_id = $1",
      cus,
    );
    expect(charges?.n).toBe(0);
    const methods = await processor<Json[]>("listPaymentMethods", {
      organizationId: acme.organizationId,
      customerId: cus,
    });
    expect(methods.map((m) => m.id)).toEqual([pm]);

    const renewal = await processor<Json>("chargeOffSession", {
      organizationId: acme.organizationId,
      amount: 2500,
      currency: "eur",
      customerId: cus,
      paymentMethodId: pm,
      metadata: { subscription_id: "sub_1" },
      idempotencyKey: randomUUID(),
    });
    expect(renewal).toMatchObject({ status: "succeeded", amount: 2500, currency: "eur" });
    const rows = await server.sql(
      "select off_session, amount, currency, metadata from kassa_sandbox_charge where id = $1",
      renewal.chargeId as string,
    );
    expect(rows[0]).toEqual({
      off_session: true,
      amount: 2500,
      currency: "eur",
      metadata: { subscription_id: "sub_1" },
    });
  });

  it("a checkout that saves its card lets the renewal charge it; 0341 saves but its renewal fails", async () => {
    const cus = await customer();
    const first = await charge(
      cus,
      { confirmationTokenId: await token("4242424242424242") },
      { savePaymentMethod: true },
    );
    const pm = (first.paymentMethod as { id: string }).id;
    const renewal = await processor<Json>("chargeOffSession", {
      organizationId: acme.organizationId,
      amount: 1000,
      currency: "usd",
      customerId: cus,
      paymentMethodId: pm,
      idempotencyKey: randomUUID(),
    });
    expect(renewal.status).toBe("succeeded");

    const saved = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: await token("4000000000000341"),
      idempotencyKey: randomUUID(),
    });
    expect(saved.status).toBe("succeeded");
    const failing = await processor<Json>("chargeOffSession", {
      organizationId: acme.organizationId,
      amount: 1000,
      currency: "usd",
      customerId: cus,
      paymentMethodId: (saved.paymentMethod as { id: string }).id,
      idempotencyKey: randomUUID(),
    });
    expect(failing).toMatchObject({
      status: "failed",
      declineCode: "generic_decline",
      message: "Your card was declined.",
    });
  });

  it("a card not saved on checkout, a declined card, and another customer's card cannot be charged later", async () => {
    const cus = await customer();
    const unsaved = await charge(cus, { confirmationTokenId: await token("4242424242424242") });
    const offSession = (paymentMethodId: string, customerId = cus) =>
      processor("chargeOffSession", {
        organizationId: acme.organizationId,
        amount: 1000,
        currency: "usd",
        customerId,
        paymentMethodId,
        idempotencyKey: randomUUID(),
      });
    expect(await refusal(offSession((unsaved.paymentMethod as { id: string }).id))).toBe(
      "payment_method_not_found",
    );

    const declined = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: await token("4000000000000002"),
      idempotencyKey: randomUUID(),
    });
    expect(declined).toEqual({
      status: "failed",
      declineCode: "generic_decline",
      message: "Your card was declined.",
    });

    const someoneElse = await customer();
    const theirs = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: someoneElse,
      confirmationTokenId: await token("4242424242424242"),
      idempotencyKey: randomUUID(),
    });
    expect(await refusal(offSession((theirs.paymentMethod as { id: string }).id))).toBe(
      "payment_method_not_found",
    );
    const methods = await processor<Json[]>("listPaymentMethods", {
      organizationId: acme.organizationId,
      customerId: cus,
    });
    expect(methods).toEqual([]);
  });
});

describe("refunds", () => {
  const refund = (chargeId: string, amount?: number, m: Merchant = acme, key = randomUUID()) =>
    processor<Json>("refund", {
      organizationId: m.organizationId,
      chargeId,
      ...(amount !== undefined ? { amount } : {}),
      reason: "customer_request",
      idempotencyKey: key,
    });

  it("refunds part, then the rest, then nothing more", async () => {
    const paid = await charge(await customer(), { confirmationTokenId: await token("4242424242424242") });
    const id = paid.chargeId as string;
    expect(await refund(id, 300)).toMatchObject({ status: "succeeded", amount: 300 });
    expect(await refund(id, 800)).toMatchObject({ status: "failed", code: "amount_too_large" });
    expect(await refund(id)).toMatchObject({ status: "succeeded", amount: 700 });
    expect(await refund(id, 1)).toMatchObject({ status: "failed", code: "charge_already_refunded" });
    const rows = await server.sql("select amount_refunded from kassa_sandbox_charge where id = $1", id);
    expect(rows[0]).toEqual({ amount_refunded: 1000 });
    const refunds = await server.sql<{ amount: number }>(
      "select amount from kassa_sandbox_refund where charge_id = $1 order by amount",
      id,
    );
    expect(refunds.map((r) => r.amount)).toEqual([300, 700]);
  });

  it("never refunds more than the charge under 10 parallel refunds", async () => {
    const paid = await charge(await customer(), { confirmationTokenId: await token("4242424242424242") });
    const id = paid.chargeId as string;
    const results = await Promise.all(Array.from({ length: 10 }, () => refund(id, 300)));
    expect(results.filter((r) => r.status === "succeeded")).toHaveLength(3);
    expect(results.filter((r) => r.status === "failed").every((r) => r.code === "amount_too_large")).toBe(
      true,
    );
    const rows = await server.sql("select amount_refunded from kassa_sandbox_charge where id = $1", id);
    expect(rows[0]).toEqual({ amount_refunded: 900 });
  });

  it("replays a refund for its key, refuses a failed charge, and another organization's charge", async () => {
    const paid = await charge(await customer(), { confirmationTokenId: await token("4242424242424242") });
    const id = paid.chargeId as string;
    const key = randomUUID();
    const first = await refund(id, 100, acme, key);
    const again = await refund(id, 100, acme, key);
    expect(again.refundId).toBe(first.refundId);
    const rows = await server.sql("select amount_refunded from kassa_sandbox_charge where id = $1", id);
    expect(rows[0]).toEqual({ amount_refunded: 100 });
    expect(await refusal(refund(id, 100, other))).toBe("charge_not_found");

    const declined = await charge(await customer(), { confirmationTokenId: await token("4000000000000002") });
    expect(await refund(declined.chargeId as string)).toMatchObject({
      status: "failed",
      code: "charge_failed",
    });
  });
});

describe("token rate limit", () => {
  it("answers 429 with Retry-After past SANDBOX_TOKEN_RATE_LIMIT a minute per address", async () => {
    const limited = await startTestServer({
      inProcess: true,
      env: { RATE_LIMIT: "on", SANDBOX_TOKEN_RATE_LIMIT: "3" },
    });
    try {
      const card = { card_number: "4242424242424242", exp_month: 12, exp_year: nextYear, cvc: "123" };
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 4; i++) {
        const res = await call(limited, undefined, "POST", TOKENS, card);
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get("retry-after");
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  }, 120_000); // starts a server of its own: slow on a loaded machine
});
