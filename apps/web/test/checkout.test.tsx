import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type {
  AttachedCustomField,
  CheckoutPrice,
  CheckoutProduct,
  CheckoutPublic,
} from "../src/checkout/api";
import { CheckoutApp, parseCheckoutPath } from "../src/checkout/app";
import { parseExpiry } from "../src/checkout/card";
import { CheckoutPage } from "../src/checkout/checkout-page";
import { ConfirmationPage } from "../src/checkout/confirmation-page";
import { routeFetchTo } from "./fetch";
import { describedBy, renderWithTheme } from "./render";
import { stripeJs } from "./stripe-js";

vi.mock("@stripe/stripe-js/pure", async () => ({
  loadStripe: (await import("./stripe-js")).stripeJs.loadStripe,
}));
const stripe = stripeJs;

const SECRET = "polar_c_test_secret";
const NOW = "2026-11-22T12:00:00.000Z";

/** A catalog price: fixed by default; `over` may make it another kind (its fields as the server answers them). */
function price(over: Record<string, unknown> = {}): CheckoutPrice {
  return {
    id: "price-fixed",
    created_at: NOW,
    modified_at: null,
    source: "catalog",
    amount_type: "fixed",
    price_currency: "usd",
    tax_behavior: null,
    is_archived: false,
    product_id: "prod-1",
    type: "one_time",
    recurring_interval: null,
    price_amount: 2500,
    ...over,
  } as CheckoutPrice;
}

function product(over: Partial<CheckoutProduct> = {}): CheckoutProduct {
  const p = over.prices ?? [price()];
  return {
    id: "prod-1",
    created_at: NOW,
    modified_at: null,
    trial_interval: null,
    trial_interval_count: null,
    name: "Pro license",
    description: "Lifetime access.",
    visibility: "public",
    is_recurring: false,
    is_archived: false,
    recurring_interval: null,
    recurring_interval_count: null,
    meter_interval: null,
    meter_interval_count: null,
    organization_id: "org-1",
    benefits: [
      {
        id: "b1",
        created_at: NOW,
        modified_at: null,
        type: "license_keys",
        description: "A license key",
        organization_id: "org-1",
      },
    ],
    medias: [],
    ...over,
    prices: p,
  };
}

function checkoutFixture(over: Partial<CheckoutPublic> = {}): CheckoutPublic {
  const prod = over.product ?? product();
  const productPrice = over.product_price ?? prod.prices[0] ?? null;
  const amount = productPrice?.amount_type === "fixed" ? (productPrice.price_amount ?? 0) : 0;
  return {
    id: "checkout-1",
    created_at: NOW,
    modified_at: null,
    status: "open",
    client_secret: SECRET,
    url: `http://localhost/checkout/${SECRET}`,
    expires_at: NOW,
    success_url: `http://localhost/checkout/${SECRET}/confirmation`,
    return_url: null,
    embed_origin: null,
    amount,
    discount_amount: 0,
    net_amount: amount,
    tax_amount: 0,
    tax_behavior: null,
    total_amount: amount,
    currency: "usd",
    allow_trial: null,
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    organization_id: "org-1",
    product_id: prod.id,
    product_price_id: productPrice?.id ?? null,
    discount_id: null,
    allow_discount_codes: true,
    require_billing_address: false,
    is_discount_applicable: true,
    is_free_product_price: productPrice?.amount_type === "free",
    is_payment_required: amount > 0,
    is_payment_setup_required: false,
    is_payment_form_required: amount > 0,
    customer_id: null,
    is_business_customer: false,
    customer_name: null,
    customer_email: null,
    customer_ip_address: null,
    customer_billing_name: null,
    customer_billing_address: null,
    customer_tax_id: null,
    locale: null,
    payment_processor: "stripe",
    payment_processor_metadata: {},
    billing_address_fields: {
      country: "required",
      state: "optional",
      city: "optional",
      postal_code: "optional",
      line1: "optional",
      line2: "optional",
    },
    custom_field_data: {},
    products: [prod],
    product: prod,
    product_price: productPrice,
    prices: { [prod.id]: prod.prices },
    discount: null,
    organization: {
      created_at: NOW,
      modified_at: null,
      id: "org-1",
      name: "Acme Tools",
      slug: "acme",
      avatar_url: null,
      proration_behavior: "invoice",
      allow_customer_updates: true,
    },
    attached_custom_fields: [],
    ...over,
  };
}

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  authorization: string | null;
}

type Handler = (call: Call) => Response | undefined | Promise<Response | undefined>;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const unprocessable = (loc: (string | number)[], msg: string) =>
  json(422, { error: "RequestValidationError", detail: [{ type: "value_error", loc, msg, input: null }] });

/** Routes the page's fetches to `handler` (then to the sandbox config); records every call. */
function stubFetch(handler: Handler): Call[] {
  const calls: Call[] = [];
  routeFetchTo(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const headers = new Headers(init?.headers);
    const call: Call = {
      method: init?.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
      authorization: headers.get("authorization"),
    };
    calls.push(call);
    const answer = await handler(call);
    if (answer) return answer;
    if (call.path === "/api/checkout/config")
      return json(200, { processor: "sandbox", stripe_publishable_key: null });
    return json(404, { error: "ResourceNotFound", detail: "Not found" });
  });
  return calls;
}

const clientPath = `/v1/checkouts/client/${SECRET}`;

function renderCheckout() {
  const navigated: string[] = [];
  const r = renderWithTheme(
    <CheckoutPage clientSecret={SECRET} navigate={(url) => navigated.push(url)} pollIntervalMs={5} />,
  );
  return { ...r, navigated };
}

async function fillCard(user: ReturnType<typeof renderWithTheme>["user"], number: string) {
  await user.type(screen.getByLabelText(/^Card number/), number);
  await user.type(screen.getByLabelText(/^Expiry date/), "1230");
  await user.type(screen.getByLabelText(/^Security code/), "123");
}

/** These tests type a whole checkout into the form: slow on a busy machine. */
const SLOW = 45_000;

describe("checkout page", () => {
  it(
    "shows a loader, then the seller, the product, its benefits, the amounts and the sandbox test cards",
    async () => {
      let release: (r: Response) => void = () => undefined;
      stubFetch((c) => (c.path === clientPath ? new Promise<Response>((r) => (release = r)) : undefined));
      renderCheckout();
      expect(screen.getByLabelText("Loading the checkout")).toBeTruthy();
      await act(async () =>
        release(
          json(
            200,
            checkoutFixture({ tax_amount: 500, total_amount: 3000, return_url: "https://acme.example/shop" }),
          ),
        ),
      );
      expect(await screen.findByRole("heading", { name: "Pro license" })).toBeTruthy();
      expect(screen.getByText("Acme Tools")).toBeTruthy();
      expect(screen.getByText("A license key")).toBeTruthy();
      expect(screen.getByTestId("subtotal").textContent).toBe("$25.00");
      expect(screen.getByTestId("tax").textContent).toBe("$5.00");
      expect(screen.getByTestId("total").textContent).toBe("$30.00");
      const hint = screen.getByTestId("sandbox-hint");
      expect(hint.textContent).toContain("4242 4242 4242 4242");
      expect(hint.textContent).toContain("4000 0000 0000 0002");
      expect(hint.textContent).toContain("4000 0000 0000 9995");
      expect(screen.getByRole("button", { name: "Pay $30.00" })).toBeTruthy();
    },
    SLOW,
  );

  it("tells the server the buyer opened it, once it shows", async () => {
    const calls = stubFetch((c) => (c.path === clientPath ? json(200, checkoutFixture()) : undefined));
    renderCheckout();
    await screen.findByRole("button", { name: /^Pay / });
    await waitFor(() =>
      expect(calls.filter((c) => c.path === `${clientPath}/opened`).map((c) => c.method)).toEqual(["POST"]),
    );
  });

  it("renders the product description's Markdown, and no HTML or script link from it", async () => {
    const description = [
      "Get **500 icons** in _two_ styles:",
      "",
      "- SVG",
      "- PNG",
      "",
      '<img src="x" onerror="alert(1)"> [docs](https://acme.example/docs) [bad](javascript:alert(1))',
    ].join("\n");
    stubFetch((c) =>
      c.path === clientPath ? json(200, checkoutFixture({ product: product({ description }) })) : undefined,
    );
    const { container } = renderCheckout();
    // The Markdown renderer is a lazy chunk: its first import (a transform of the library) took
    // more than the 5 s default in a CI run under a load average of 20.
    const strong = await screen.findByText("500 icons", { selector: "strong" }, { timeout: 8000 });
    expect(strong).toBeTruthy();
    expect(screen.getByText("two", { selector: "em" })).toBeTruthy();
    expect(screen.getByText("PNG", { selector: "li" })).toBeTruthy();
    expect(container.textContent).not.toContain("**");
    expect(container.querySelector("img[onerror]")).toBeNull();
    expect(screen.getByRole("link", { name: "docs" }).getAttribute("href")).toBe("https://acme.example/docs");
    const bad = screen.queryByRole("link", { name: "bad" });
    expect(bad?.getAttribute("href") ?? "").not.toContain("javascript:");
  });

  it("the app reads the checkout once (a re-render does not read it again)", async () => {
    const calls = stubFetch((c) => (c.path === clientPath ? json(200, checkoutFixture()) : undefined));
    renderWithTheme(<CheckoutApp location={{ pathname: `/checkout/${SECRET}`, search: "" }} />);
    await screen.findByRole("heading", { name: "Pro license" });
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.filter((c) => c.path === clientPath)).toHaveLength(1);
  });

  it(
    "an expired checkout (410) says so",
    async () => {
      stubFetch((c) =>
        c.path === clientPath
          ? json(410, { error: "ExpiredCheckoutError", detail: "This checkout is expired." })
          : undefined,
      );
      renderCheckout();
      expect(await screen.findByRole("heading", { name: "This checkout has expired" })).toBeTruthy();
      expect(screen.queryByRole("button", { name: /Pay/ })).toBeNull();
    },
    SLOW,
  );

  it(
    "an unknown checkout (404) says it is not found",
    async () => {
      stubFetch(() => undefined);
      renderCheckout();
      expect(await screen.findByRole("heading", { name: "Checkout not found" })).toBeTruthy();
    },
    SLOW,
  );

  it(
    "a free product asks for no card and confirms without a token, then goes to the success URL with the session token",
    async () => {
      const free = product({
        prices: [price({ id: "price-free", amount_type: "free", price_amount: undefined })],
      });
      const checkout = checkoutFixture({ product: free, products: [free] });
      const calls = stubFetch((c) => {
        if (c.path === clientPath) return json(200, checkout);
        if (c.path === `${clientPath}/confirm`)
          return json(200, { ...checkout, status: "succeeded", customer_session_token: "polar_cst_abc" });
        return undefined;
      });
      const { user, navigated } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      expect(screen.getByTestId("price").textContent).toBe("Free");
      expect(screen.queryByLabelText("Card number")).toBeNull();
      expect(screen.queryByTestId("sandbox-hint")).toBeNull();
      await user.type(screen.getByLabelText(/^E-mail/), "buyer@example.com");
      await user.click(screen.getByRole("button", { name: "Get it free" }));
      await waitFor(() => expect(navigated).toHaveLength(1));
      const confirm = calls.find((c) => c.path === `${clientPath}/confirm`);
      expect(confirm?.body).toMatchObject({
        customer_email: "buyer@example.com",
        is_business_customer: false,
      });
      expect(confirm?.body).not.toHaveProperty("confirmation_token_id");
      expect(calls.some((c) => c.path.startsWith("/v1/sandbox"))).toBe(false);
      expect(navigated[0]).toBe(
        `http://localhost/checkout/${SECRET}/confirmation?customer_session_token=polar_cst_abc`,
      );
    },
    SLOW,
  );

  it(
    "pay what you want: the bounds are checked at the field, a good amount is sent and the total follows",
    async () => {
      const pwyw = price({
        id: "price-custom",
        amount_type: "custom",
        price_amount: undefined,
        minimum_amount: 500,
        maximum_amount: 10000,
        preset_amount: 1000,
      });
      const prod = product({ prices: [pwyw] });
      const checkout = checkoutFixture({
        product: prod,
        products: [prod],
        amount: 1000,
        net_amount: 1000,
        total_amount: 1000,
        is_payment_form_required: true,
        is_payment_required: true,
      });
      const calls = stubFetch((c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, checkout);
        if (c.path === clientPath && c.method === "PATCH") {
          const amount = c.body?.amount as number;
          return json(200, { ...checkout, amount, net_amount: amount, total_amount: amount });
        }
        return undefined;
      });
      const { user } = renderCheckout();
      const input = await screen.findByLabelText("Name a fair price");
      expect((input as HTMLInputElement).value).toBe("10");
      expect(describedBy(input)).toContain("Between $5.00 and $100.00");

      await user.clear(input);
      await user.type(input, "2");
      await user.tab();
      expect(describedBy(input)).toContain("The amount is at least $5.00.");
      await user.clear(input);
      await user.type(input, "150");
      await user.tab();
      expect(describedBy(input)).toContain("The amount is at most $100.00.");
      expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(0);

      await user.clear(input);
      await user.type(input, "12.50");
      await user.tab();
      await waitFor(() => expect(screen.getByTestId("total").textContent).toBe("$12.50"));
      expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ amount: 1250 });
      expect(describedBy(input)).not.toContain("The amount is");
    },
    SLOW,
  );

  it(
    "a refused discount code is shown at its field; a good one shows the discount and can be removed",
    async () => {
      const checkout = checkoutFixture();
      const discounted = {
        ...checkout,
        discount_id: "d1",
        discount_amount: 500,
        net_amount: 2000,
        total_amount: 2000,
        discount: {
          id: "d1",
          name: "Launch",
          code: "LAUNCH",
          type: "percentage" as const,
          duration: "once" as const,
          basis_points: 2000,
        },
      };
      const calls = stubFetch((c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, checkout);
        if (c.path === clientPath && c.method === "PATCH") {
          if (c.body?.discount_code === "NOPE")
            return unprocessable(["body", "discount_code"], "Discount code is invalid.");
          if (c.body?.discount_code === "LAUNCH") return json(200, discounted);
          if (c.body?.discount_code === null) return json(200, checkout);
        }
        return undefined;
      });
      const { user } = renderCheckout();
      const field = await screen.findByLabelText("Discount code");
      await user.type(field, "NOPE");
      await user.click(screen.getByRole("button", { name: "Apply" }));
      await waitFor(() =>
        expect(describedBy(screen.getByLabelText("Discount code"))).toContain("Discount code is invalid."),
      );
      expect(screen.getByTestId("total").textContent).toBe("$25.00");

      await user.clear(screen.getByLabelText("Discount code"));
      await user.type(screen.getByLabelText("Discount code"), "LAUNCH{Enter}");
      expect((await screen.findByTestId("applied-discount")).textContent).toBe("LAUNCH");
      expect(screen.getByTestId("discount").textContent).toBe("−$5.00");
      expect(screen.getByText(/Discount \(Launch: 20% off\)/)).toBeTruthy();
      expect(screen.getByTestId("total").textContent).toBe("$20.00");

      await user.click(screen.getByRole("button", { name: "Remove" }));
      await waitFor(() => expect(screen.queryByTestId("applied-discount")).toBeNull());
      expect(screen.getByTestId("total").textContent).toBe("$25.00");
      expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([
        { discount_code: "NOPE" },
        { discount_code: "LAUNCH" },
        { discount_code: null },
      ]);
    },
    SLOW,
  );

  it(
    "a declined card is shown at the card form; a good card then pays, with one confirm per click",
    async () => {
      const checkout = checkoutFixture();
      let confirms = 0;
      const calls = stubFetch(async (c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, checkout);
        if (c.path === clientPath && c.method === "PATCH") return json(200, checkout);
        if (c.path === "/v1/sandbox/confirmation-tokens") {
          const digits = String(c.body?.card_number);
          if (digits === "4242424242424241")
            return unprocessable(["body", "card_number"], "Your card number is invalid.");
          return json(201, { id: `sandbox_ctoken_${digits.slice(-4)}` });
        }
        if (c.path === `${clientPath}/confirm`) {
          confirms++;
          await new Promise((r) => setTimeout(r, 50));
          if (c.body?.confirmation_token_id === "sandbox_ctoken_0002")
            return json(400, { error: "PaymentError", detail: "Your card was declined." });
          return json(200, { ...checkout, status: "succeeded", customer_session_token: "polar_cst_x" });
        }
        return undefined;
      });
      const { user, navigated } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      await user.type(screen.getByLabelText(/^E-mail/), "buyer@example.com");
      await user.type(screen.getByLabelText(/^Cardholder name/), "Ada Buyer");
      await user.selectOptions(screen.getByLabelText(/^Country/), "DE");

      // A card number the sandbox refuses: at the card number.
      await fillCard(user, "4242424242424241");
      await user.click(screen.getByRole("button", { name: "Pay $25.00" }));
      await waitFor(() =>
        expect(describedBy(screen.getByLabelText(/^Card number/))).toContain("Your card number is invalid."),
      );
      expect(confirms).toBe(0);

      // A declined card: at the card form, nothing navigates.
      await user.clear(screen.getByLabelText(/^Card number/));
      await user.type(screen.getByLabelText(/^Card number/), "4000000000000002");
      await user.click(screen.getByRole("button", { name: "Pay $25.00" }));
      expect((await screen.findByTestId("payment-error")).textContent).toBe("Your card was declined.");
      expect(navigated).toHaveLength(0);

      // A good card; a double click confirms once.
      await user.clear(screen.getByLabelText(/^Card number/));
      await user.type(screen.getByLabelText(/^Card number/), "4242424242424242");
      expect(screen.queryByTestId("payment-error")).toBeNull();
      const pay = screen.getByRole("button", { name: "Pay $25.00" });
      fireEvent.click(pay);
      fireEvent.click(pay);
      await waitFor(() => expect(navigated).toHaveLength(1));
      expect(confirms).toBe(2);
      const last = calls.filter((c) => c.path === `${clientPath}/confirm`).at(-1);
      expect(last?.body).toMatchObject({
        confirmation_token_id: "sandbox_ctoken_4242",
        customer_email: "buyer@example.com",
        customer_name: "Ada Buyer",
        customer_billing_address: { country: "DE" },
      });
      expect(calls.filter((c) => c.path === "/v1/sandbox/confirmation-tokens").at(-1)?.body).toEqual({
        card_number: "4242424242424242",
        exp_month: 12,
        exp_year: 2030,
        cvc: "123",
      });
    },
    SLOW,
  );

  it(
    "required custom fields and missing details are shown at their fields before anything is sent; the server's refusals too",
    async () => {
      const field = (
        slug: string,
        type: "text" | "number" | "date" | "checkbox" | "select",
        required: boolean,
        order: number,
      ): AttachedCustomField => ({
        custom_field_id: `cf-${slug}`,
        order,
        required,
        // One field of each type; the type and its properties go together, which the union cannot see here.
        custom_field: {
          id: `cf-${slug}`,
          created_at: NOW,
          modified_at: null,
          metadata: {},
          organization_id: "org-1",
          type,
          slug,
          name: slug.replace(/_/g, " "),
          properties:
            type === "select"
              ? {
                  options: [
                    { value: "s", label: "Small" },
                    { value: "l", label: "Large" },
                  ],
                }
              : {},
        } as AttachedCustomField["custom_field"],
      });
      const free = product({
        prices: [price({ id: "price-free", amount_type: "free", price_amount: undefined })],
      });
      const checkout = checkoutFixture({
        product: free,
        products: [free],
        attached_custom_fields: [
          field("company", "text", true, 0),
          field("seats", "number", false, 1),
          field("start_date", "date", false, 2),
          field("team_size", "select", true, 3),
          field("terms", "checkbox", true, 4),
        ],
      });
      const calls = stubFetch((c) => {
        if (c.path === clientPath) return json(200, checkout);
        if (c.path === `${clientPath}/confirm`)
          return unprocessable(
            ["body", "custom_field_data", "company"],
            "String should have at most 10 characters",
          );
        return undefined;
      });
      const { user } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      await user.click(screen.getByRole("button", { name: "Get it free" }));
      await waitFor(() =>
        expect(describedBy(screen.getByLabelText(/^E-mail/))).toContain("Enter your e-mail address."),
      );
      expect(describedBy(screen.getByLabelText(/^company/))).toContain("This field is required.");
      expect(describedBy(screen.getByLabelText(/^team size/))).toContain("This field is required.");
      expect(describedBy(screen.getByLabelText(/^terms/))).toContain("Check this box to continue.");
      expect(describedBy(screen.getByLabelText(/^seats/))).not.toContain("required");
      expect(calls.some((c) => c.path.endsWith("/confirm"))).toBe(false);

      await user.type(screen.getByLabelText(/^E-mail/), "buyer@example.com");
      await user.type(screen.getByLabelText(/^company/), "A very long company name");
      await user.type(screen.getByLabelText(/^seats/), "3");
      await user.selectOptions(screen.getByLabelText(/^team size/), "l");
      await user.click(screen.getByLabelText(/^terms/));
      expect(describedBy(screen.getByLabelText(/^company/))).not.toContain("required");
      await user.click(screen.getByRole("button", { name: "Get it free" }));
      await waitFor(() =>
        expect(describedBy(screen.getByLabelText(/^company/))).toContain(
          "String should have at most 10 characters",
        ),
      );
      expect(calls.find((c) => c.path.endsWith("/confirm"))?.body?.custom_field_data).toEqual({
        company: "A very long company name",
        seats: 3,
        team_size: "l",
        terms: true,
      });
    },
    SLOW,
  );

  it(
    "a business customer gives its name, a full billing address (the seller requires one) and a tax id; the country is sent at once for the tax",
    async () => {
      const checkout = checkoutFixture({
        require_billing_address: true,
        tax_amount: null,
        billing_address_fields: {
          country: "required",
          line1: "required",
          line2: "optional",
          city: "required",
          postal_code: "required",
          state: "disabled",
        },
      });
      const calls = stubFetch((c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, checkout);
        if (c.path === clientPath && c.method === "PATCH") {
          if (c.body?.is_business_customer !== undefined)
            return json(200, { ...checkout, is_business_customer: c.body.is_business_customer as boolean });
          return json(200, { ...checkout, is_business_customer: true, tax_amount: 500, total_amount: 3000 });
        }
        if (c.path === "/v1/sandbox/confirmation-tokens") return json(201, { id: "tok" });
        if (c.path === `${clientPath}/confirm`)
          return unprocessable(["body", "customer_tax_id"], "Invalid tax ID.");
        return undefined;
      });
      const { user } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      expect(screen.getByTestId("tax").textContent).toBe("Calculated at payment");
      expect(screen.queryByLabelText(/^Tax ID/)).toBeNull();
      expect(screen.queryByLabelText(/^State/)).toBeNull();
      await user.click(screen.getByLabelText("I'm purchasing as a business"));
      await user.selectOptions(screen.getByLabelText(/^Country/), "FR");
      await waitFor(() => expect(screen.getByTestId("total").textContent).toBe("$30.00"));
      expect(screen.getByTestId("tax").textContent).toBe("$5.00");
      expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([
        { is_business_customer: true },
        { customer_billing_address: { country: "FR" } },
      ]);
      await user.type(screen.getByLabelText(/^E-mail/), "buyer@example.com");
      await user.type(screen.getByLabelText(/^Cardholder name/), "Ada");
      await fillCard(user, "4242424242424242");
      await user.click(screen.getByRole("button", { name: "Pay $30.00" }));
      expect(describedBy(screen.getByLabelText(/^Business name/))).toContain("Enter the business name.");
      expect(describedBy(screen.getByLabelText(/^Address(?! line)/))).toContain("Enter your address.");
      expect(describedBy(screen.getByLabelText(/^City/))).toContain("Enter your city.");
      expect(describedBy(screen.getByLabelText(/^Address line 2/))).not.toContain("Enter");
      expect(calls.some((c) => c.path.endsWith("/confirm"))).toBe(false);
      await user.type(screen.getByLabelText(/^Business name/), "Ada SARL");
      await user.type(screen.getByLabelText(/^Address(?! line)/), "1 rue de la Paix");
      await user.type(screen.getByLabelText(/^Postal code/), "75002");
      await user.type(screen.getByLabelText(/^City/), "Paris");
      await user.type(screen.getByLabelText(/^Tax ID/), "FR000");
      await user.click(screen.getByRole("button", { name: "Pay $30.00" }));
      await waitFor(() => expect(describedBy(screen.getByLabelText(/^Tax ID/))).toContain("Invalid tax ID."));
      expect(calls.find((c) => c.path.endsWith("/confirm"))?.body).toMatchObject({
        is_business_customer: true,
        customer_billing_name: "Ada SARL",
        customer_tax_id: "FR000",
        customer_billing_address: {
          country: "FR",
          line1: "1 rue de la Paix",
          postal_code: "75002",
          city: "Paris",
        },
      });
    },
    SLOW,
  );

  it(
    "several products and prices: choosing one updates the checkout",
    async () => {
      const monthly = price({
        id: "m",
        type: "recurring",
        recurring_interval: "month",
        price_amount: 1000,
        product_id: "sub",
      });
      const yearly = price({
        id: "y",
        type: "recurring",
        recurring_interval: "year",
        price_amount: 10000,
        product_id: "sub",
      });
      const sub = product({
        id: "sub",
        name: "Team plan",
        is_recurring: true,
        recurring_interval: "month",
        prices: [monthly, yearly],
      });
      const one = product();
      const base = checkoutFixture({
        products: [one, sub],
        prices: { [one.id]: one.prices, sub: [monthly, yearly] },
      });
      const onSub = {
        ...base,
        product: sub,
        product_id: "sub",
        product_price: monthly,
        product_price_id: "m",
        amount: 1000,
        net_amount: 1000,
        total_amount: 1000,
      };
      const calls = stubFetch((c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, base);
        if (c.method === "PATCH" && c.body?.product_id === "sub") return json(200, onSub);
        if (c.method === "PATCH" && c.body?.product_price_id === "y")
          return json(200, {
            ...onSub,
            product_price: yearly,
            product_price_id: "y",
            amount: 10000,
            net_amount: 10000,
            total_amount: 10000,
          });
        return undefined;
      });
      const { user } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      await user.click(screen.getByRole("radio", { name: /Team plan/ }));
      expect(await screen.findByRole("heading", { name: "Team plan" })).toBeTruthy();
      expect(screen.getByTestId("total").textContent).toBe("$10.00/month");
      await user.click(screen.getByRole("radio", { name: "$100.00/year" }));
      await waitFor(() => expect(screen.getByTestId("total").textContent).toBe("$100.00/year"));
      expect(screen.getByRole("button", { name: "Subscribe · $100.00/year" })).toBeTruthy();
      expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([
        { product_id: "sub" },
        { product_price_id: "y" },
      ]);
    },
    SLOW,
  );
});

describe("checkout page, already paid", () => {
  it(
    "a checkout paid meanwhile (403 NotOpenCheckout) leads to its confirmation page",
    async () => {
      const free = product({
        prices: [price({ id: "price-free", amount_type: "free", price_amount: undefined })],
      });
      stubFetch((c) => {
        if (c.path === clientPath) return json(200, checkoutFixture({ product: free, products: [free] }));
        if (c.path === `${clientPath}/confirm`)
          return json(403, {
            error: "NotOpenCheckout",
            detail: "Checkout checkout-1 is not open: succeeded",
          });
        return undefined;
      });
      const { user, navigated } = renderCheckout();
      await screen.findByRole("heading", { name: "Pro license" });
      await user.type(screen.getByLabelText(/^E-mail/), "a@example.com");
      await user.click(screen.getByRole("button", { name: "Get it free" }));
      await waitFor(() => expect(navigated).toEqual([`/checkout/${SECRET}/confirmation`]));
    },
    SLOW,
  );
});

describe("checkout page, Stripe mode", () => {
  it(
    "Stripe's Payment Element instead of the sandbox card form; its confirmation token confirms, and 3-D Secure is handed to Stripe",
    async () => {
      const checkout = checkoutFixture({
        payment_processor_metadata: { processor: "stripe", publishable_key: "pk_test_kassa" },
      });
      const calls = stubFetch((c) => {
        if (c.path === clientPath && c.method === "GET") return json(200, checkout);
        if (c.path === clientPath && c.method === "PATCH") return json(200, checkout);
        if (c.path === `${clientPath}/confirm`)
          return json(200, {
            ...checkout,
            status: "confirmed",
            customer_session_token: "polar_cst_s",
            payment_processor_metadata: {
              intent_status: "requires_action",
              intent_client_secret: "pi_1_secret_2",
            },
          });
        return undefined;
      });
      stripe.calls.length = 0;
      const { user, navigated } = renderCheckout();
      await screen.findByText("Stripe payment element");
      expect(screen.queryByTestId("sandbox-hint")).toBeNull();
      expect(screen.queryByLabelText(/^Card number/)).toBeNull();
      expect(stripe.calls[0]).toEqual({ method: "loadStripe", args: "pk_test_kassa" });
      expect(stripe.calls[1]).toEqual({
        method: "elements",
        args: { mode: "payment", amount: 2500, currency: "usd", paymentMethodCreation: "manual" },
      });
      await user.type(screen.getByLabelText(/^E-mail/), "buyer@example.com");
      await user.type(screen.getByLabelText(/^Cardholder name/), "Ada");
      await user.selectOptions(screen.getByLabelText(/^Country/), "FR");
      await user.click(screen.getByRole("button", { name: "Pay $25.00" }));
      await waitFor(() => expect(navigated).toHaveLength(1));
      expect(calls.some((c) => c.path.startsWith("/v1/sandbox"))).toBe(false);
      expect(calls.find((c) => c.path.endsWith("/confirm"))?.body).toMatchObject({
        confirmation_token_id: "ctoken_stripe_1",
        customer_email: "buyer@example.com",
      });
      const token = stripe.calls.find((c) => c.method === "createConfirmationToken")?.args as {
        params: { payment_method_data: { billing_details: { email: string; address: { country: string } } } };
      };
      expect(token.params.payment_method_data.billing_details.email).toBe("buyer@example.com");
      expect(token.params.payment_method_data.billing_details.address.country).toBe("FR");
      expect(stripe.calls.find((c) => c.method === "handleNextAction")?.args).toEqual({
        clientSecret: "pi_1_secret_2",
      });
      expect(navigated[0]).toContain("customer_session_token=polar_cst_s");
    },
    SLOW,
  );
});

describe("confirmation page", () => {
  it("shows the paid order with its invoice and a link to the customer portal", async () => {
    const checkout = checkoutFixture({ status: "succeeded", customer_email: "buyer@example.com" });
    const calls = stubFetch((c) => {
      if (c.path === clientPath) return json(200, checkout);
      if (c.path.startsWith("/v1/customer-portal/orders/?"))
        return json(200, {
          items: [
            {
              id: "order-1",
              created_at: NOW,
              status: "paid",
              paid: true,
              checkout_id: "checkout-1",
              invoice_number: "ACME-0001",
              is_invoice_generated: true,
              subtotal_amount: 2500,
              discount_amount: 0,
              tax_amount: 0,
              total_amount: 2500,
              currency: "usd",
            },
          ],
          pagination: { total_count: 1, max_page: 1 },
        });
      return undefined;
    });
    renderWithTheme(
      <ConfirmationPage clientSecret={SECRET} customerSessionToken="polar_cst_abc" pollIntervalMs={5} />,
    );
    expect(await screen.findByRole("heading", { name: "Thank you for your purchase" })).toBeTruthy();
    expect(screen.getByText("A receipt is on its way to buyer@example.com.")).toBeTruthy();
    const order = await screen.findByTestId("order");
    expect(order.textContent).toContain("Order ACME-0001");
    expect(order.textContent).toContain("Paid $25.00");
    expect(within(order).getByRole("button", { name: "Download invoice" })).toBeTruthy();
    expect(screen.getByRole("link", { name: /customer portal/ }).getAttribute("href")).toBe(
      "/portal/acme?customer_session_token=polar_cst_abc",
    );
    expect(calls.find((c) => c.path.startsWith("/v1/customer-portal"))?.authorization).toBe(
      "Bearer polar_cst_abc",
    );
  });

  it("shows the files a downloadables benefit granted, each a download link", async () => {
    const files = {
      id: "b-files",
      created_at: NOW,
      modified_at: null,
      type: "downloadables" as const,
      description: "The album",
      organization_id: "org-1",
    };
    const checkout = checkoutFixture({ status: "succeeded", product: product({ benefits: [files] }) });
    const calls = stubFetch((c) => {
      if (c.path === clientPath) return json(200, checkout);
      if (c.path.startsWith("/v1/customer-portal/orders/?"))
        return json(200, {
          items: [
            {
              id: "order-1",
              created_at: NOW,
              status: "paid",
              paid: true,
              checkout_id: "checkout-1",
              subscription_id: null,
              invoice_number: "ACME-0002",
              is_invoice_generated: false,
              subtotal_amount: 2500,
              discount_amount: 0,
              tax_amount: 0,
              total_amount: 2500,
              currency: "usd",
            },
          ],
          pagination: { total_count: 1, max_page: 1 },
        });
      if (c.path.startsWith("/v1/customer-portal/benefit-grants/?"))
        return json(200, {
          items: [
            {
              id: "grant-1",
              benefit_id: "b-files",
              is_granted: true,
              error: null,
              properties: { files: ["file-1"] },
              benefit: { id: "b-files", type: "downloadables", properties: {} },
            },
          ],
          pagination: { total_count: 1, max_page: 1 },
        });
      if (c.path.startsWith("/v1/customer-portal/downloadables/?"))
        return json(200, {
          items: [
            {
              id: "dl-1",
              benefit_id: "b-files",
              file: {
                id: "file-1",
                name: "album.zip",
                size_readable: "1.2 MB",
                download: { url: "https://files.example/album.zip?signature=abc", expires_at: NOW },
              },
            },
          ],
          pagination: { total_count: 1, max_page: 1 },
        });
      return undefined;
    });
    renderWithTheme(
      <ConfirmationPage clientSecret={SECRET} customerSessionToken="polar_cst_abc" pollIntervalMs={5} />,
    );
    const link = await screen.findByRole("link", { name: "Download album.zip" });
    expect(link.getAttribute("href")).toBe("https://files.example/album.zip?signature=abc");
    expect(within(screen.getByTestId("downloads")).getAllByRole("link")).toHaveLength(1);
    const listed = calls.find((c) => c.path.startsWith("/v1/customer-portal/downloadables/?"));
    expect(new URLSearchParams(listed?.path.split("?")[1]).get("benefit_id")).toBe("b-files");
    expect(listed?.authorization).toBe("Bearer polar_cst_abc");
  });

  it("waits while the payment is processing, then shows it succeeded", async () => {
    let reads = 0;
    stubFetch((c) => {
      if (c.path !== clientPath) return undefined;
      reads++;
      return json(200, checkoutFixture({ status: reads < 3 ? "confirmed" : "succeeded" }));
    });
    renderWithTheme(
      <ConfirmationPage clientSecret={SECRET} customerSessionToken={null} pollIntervalMs={5} />,
    );
    expect(await screen.findByText("We are processing your payment…")).toBeTruthy();
    expect(await screen.findByRole("heading", { name: "Thank you for your purchase" })).toBeTruthy();
    // Without a session the link opens the portal's sign-in.
    expect(screen.getByRole("link", { name: /customer portal/ }).getAttribute("href")).toBe("/portal/acme");
  });

  it("the app reads the client secret and the page from the address", () => {
    expect(parseCheckoutPath(`/checkout/${SECRET}`)).toEqual({ clientSecret: SECRET, confirmation: false });
    expect(parseCheckoutPath(`/checkout/${SECRET}/confirmation`)).toEqual({
      clientSecret: SECRET,
      confirmation: true,
    });
    expect(parseCheckoutPath("/checkout/")).toBeNull();
    expect(parseCheckoutPath("/checkout/a/b")).toBeNull();
    expect(parseExpiry("12 / 30")).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry("13/30")).toBeNull();
    renderWithTheme(<CheckoutApp location={{ pathname: "/checkout/", search: "" }} />);
    expect(screen.getByRole("heading", { name: "Checkout not found" })).toBeTruthy();
  });
});
