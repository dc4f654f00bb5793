import { screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CheckoutApp } from "../src/checkout/app";
import { parsePaymentMethodPath } from "../src/checkout/payment-method-link";
import { cardLabel } from "../src/checkout/payment-method-page";
import { routeFetchTo } from "./fetch";
import { renderWithTheme } from "./render";
import { stripeJs } from "./stripe-js";

vi.mock("@stripe/stripe-js/pure", async () => ({
  loadStripe: (await import("./stripe-js")).stripeJs.loadStripe,
}));

const SUB = "0b6e7c1e-6f43-4a4e-9f5e-2b1a3c4d5e6f";
const location = {
  pathname: `/subscription/${SUB}/payment-method`,
  search: "?expires=1900000000&signature=sig",
};

const session = {
  customer_session_token: "polar_cst_1",
  organization_name: "Acme",
  customer_email: "ada@buyer.test",
  subscription: {
    id: SUB,
    status: "past_due",
    product_name: "Pro",
    amount: 1500,
    currency: "usd",
    recurring_interval: "month",
    current_period_end: "2026-05-01T10:00:00Z",
    amount_due: 1500,
    next_payment_attempt_at: "2026-04-03T10:00:00Z",
    card: { brand: "visa", last4: "0341" },
  },
};

interface Seen {
  method: string;
  path: string;
  body: unknown;
  auth: string | null;
}

function stub(answer: (req: Seen) => [number, unknown]) {
  const seen: Seen[] = [];
  routeFetchTo((async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = await request.text();
    const req = {
      method: request.method,
      path: new URL(request.url, "http://localhost").pathname,
      body: text ? JSON.parse(text) : undefined,
      auth: request.headers.get("authorization"),
    };
    seen.push(req);
    const [status, body] = answer(req);
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof fetch);
  return seen;
}

afterEach(() => routeFetchTo(null));

describe("the card-update page", () => {
  it("reads its link from the address; names cards", () => {
    expect(parsePaymentMethodPath(location.pathname, location.search)).toEqual({
      subscriptionId: SUB,
      expires: "1900000000",
      signature: "sig",
    });
    expect(parsePaymentMethodPath("/subscription/x", "")).toBeNull();
    expect(cardLabel({ brand: "visa", last4: "4242" })).toBe("Visa •••• 4242");
  });

  it("shows what is due and the card on file; a declined card shows its refusal, a good one is saved", async () => {
    let saves = 0;
    const seen = stub((req) => {
      if (req.path === "/v1/subscription-payment-links/session") return [200, session];
      if (req.path === "/api/checkout/config")
        return [200, { processor: "sandbox", stripe_publishable_key: null }];
      if (req.path === "/v1/sandbox/confirmation-tokens") return [201, { id: `ctoken_${seen.length}` }];
      if (req.path === "/v1/customer-portal/customers/me/payment-methods") {
        saves += 1;
        if (saves === 1)
          return [
            422,
            {
              detail: [
                {
                  loc: ["body", "confirmation_token_id"],
                  msg: "Your card was declined.",
                  type: "value_error",
                },
              ],
            },
          ];
        return [
          201,
          {
            status: "succeeded",
            payment_method: {
              id: "pm_1",
              card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2040 },
            },
          },
        ];
      }
      return [404, { detail: "Not found" }];
    });
    const { user } = renderWithTheme(<CheckoutApp location={location} />);
    await screen.findByRole("heading", { name: "Update your card" }, { timeout: 8000 });
    expect(screen.getByTestId("organization-name").textContent).toBe("Acme");
    expect(screen.getByTestId("amount-due").textContent).toBe("$15.00");
    expect(screen.getByTestId("card-on-file").textContent).toBe("Visa •••• 0341");
    expect(seen.find((r) => r.path === "/v1/subscription-payment-links/session")?.body).toEqual({
      subscription_id: SUB,
      expires: 1900000000,
      signature: "sig",
    });

    const save = screen.getByRole("button", { name: "Save card and pay $15.00" });
    await user.click(save);
    expect(screen.getByText("Enter your card number.")).toBeTruthy();
    await user.type(screen.getByLabelText(/^Card number/), "4000000000000002");
    await user.type(screen.getByLabelText(/^Expiry date/), "1240");
    await user.type(screen.getByLabelText(/^Security code/), "123");
    await user.click(save);
    expect((await screen.findByTestId("payment-error")).textContent).toBe("Your card was declined.");
    await user.click(save);
    const done = await screen.findByRole("status");
    expect(within(done).getByText("Card saved; we will retry the payment now")).toBeTruthy();
    expect(screen.getByTestId("card-on-file").textContent).toBe("Visa •••• 4242");
    const saved = seen.filter((r) => r.path === "/v1/customer-portal/customers/me/payment-methods");
    expect(saved.map((r) => r.auth)).toEqual(["Bearer polar_cst_1", "Bearer polar_cst_1"]);
    expect(saved[1]?.body).toEqual({ confirmation_token_id: expect.stringMatching(/^ctoken_/) });
  });

  it("on Stripe, a card the bank asks to confirm: the challenge runs, then the save is finished with the setup's id", async () => {
    const seen = stub((req) => {
      if (req.path === "/v1/subscription-payment-links/session") return [200, session];
      if (req.path === "/api/checkout/config")
        return [200, { processor: "stripe", stripe_publishable_key: "pk_test_kassa" }];
      if (req.path === "/v1/customer-portal/customers/me/payment-methods")
        return [201, { status: "requires_action", client_secret: "seti_1_secret_abc" }];
      if (req.path === "/v1/customer-portal/customers/me/payment-methods/confirm")
        return [
          201,
          {
            status: "succeeded",
            payment_method: {
              id: "pm_3ds",
              card: { brand: "visa", last4: "3155", exp_month: 12, exp_year: 2040 },
            },
          },
        ];
      return [404, { detail: "Not found" }];
    });
    stripeJs.calls.length = 0;
    const { user } = renderWithTheme(<CheckoutApp location={location} />);
    await screen.findByRole("heading", { name: "Update your card" }, { timeout: 8000 });
    await screen.findByText("Stripe payment element", undefined, { timeout: 8000 });
    await user.click(screen.getByRole("button", { name: "Save card and pay $15.00" }));
    const done = await screen.findByRole("status");
    expect(within(done).getByText("Card saved; we will retry the payment now")).toBeTruthy();
    expect(screen.getByTestId("card-on-file").textContent).toBe("Visa •••• 3155");
    expect(stripeJs.calls.filter((c) => c.method === "handleNextAction")).toEqual([
      { method: "handleNextAction", args: { clientSecret: "seti_1_secret_abc" } },
    ]);
    const confirm = seen.filter((r) => r.path === "/v1/customer-portal/customers/me/payment-methods/confirm");
    expect(confirm.map((r) => [r.auth, r.body])).toEqual([
      ["Bearer polar_cst_1", { setup_intent_id: "seti_1", set_default: true }],
    ]);
  });

  it("an invalid or expired link says so", async () => {
    stub(() => [
      403,
      { error: "NotPermitted", detail: "This link is invalid or has expired. Ask the seller for a new one." },
    ]);
    renderWithTheme(<CheckoutApp location={location} />);
    await screen.findByRole("heading", { name: "This link does not work" }, { timeout: 8000 });
    expect(
      screen.getByText("This link is invalid or has expired. Ask the seller for a new one."),
    ).toBeTruthy();
  });

  it("a link without its signature is refused without asking the server", async () => {
    const seen = stub(() => [500, {}]);
    renderWithTheme(<CheckoutApp location={{ pathname: location.pathname, search: "" }} />);
    await screen.findByRole("heading", { name: "This link does not work" }, { timeout: 8000 });
    expect(seen).toHaveLength(0);
  });
});
