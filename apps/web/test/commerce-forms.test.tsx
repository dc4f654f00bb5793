import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { answerWith, renderApp, stubServer } from "./app";
import { dashboardAnswers, order, page, product, refund, session } from "./commerce-fixtures";
import { describedBy, slow } from "./render";

/**
 * The commerce forms on react-hook-form with the request schemas of `@kassa/contracts/v1`
 * (products, checkout links, customers, refunds, webhooks, billing settings): the contract's
 * rule shown at its field before anything is sent, and a server's 422 landing at its field.
 */

const unprocessable = (loc: (string | number)[], msg: string) =>
  answerWith(422, {
    error: "RequestValidationError",
    detail: [{ type: "value_error", loc, msg, input: null }],
  });

const posts = <R extends { method: string; path: string }>(requests: R[], path: string) =>
  requests.filter((r) => r.method === "POST" && r.path === path);

describe("product form", () => {
  const answers = (post: (r: { body: unknown }) => unknown) => ({
    ...dashboardAnswers("owner"),
    "/v1/meters/": page([]),
    "/v1/benefits/": page([]),
    "/v1/custom-fields/": page([]),
    "/v1/products/": (r: { method: string; body: unknown }) => (r.method === "POST" ? post(r) : page([])),
  });

  it("checks the name (in words, then by the contract) and refuses a negative price at its field, sending nothing", async () => {
    const { requests } = stubServer(answers(() => product));
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    const name = await screen.findByLabelText(/^Name/, {}, slow);
    await user.type(name, "Ic");
    const amount = screen.getByLabelText(/^Amount \(USD\)/);
    await user.type(amount, "-5");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    await waitFor(() => expect(describedBy(name)).toContain("A name of at least 3 characters."));
    expect(describedBy(amount)).toContain("The amount cannot be negative.");
    expect(screen.getByTestId("price-preview-0").textContent).not.toContain("-$5.00");
    // The contract's own bound, where the form has no words of its own.
    await user.clear(name);
    await user.click(name);
    await user.paste("n".repeat(257));
    await waitFor(() => expect(describedBy(name)).toMatch(/256/));
    expect(posts(requests, "/v1/products/")).toEqual([]);
  });

  it("sends cents, and a server 422 on a price lands at that price's field", async () => {
    const { requests } = stubServer(
      answers(() => unprocessable(["body", "prices", 0, "price_amount"], "Input should be a round amount.")),
    );
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    await user.type(await screen.findByLabelText(/^Name/, {}, slow), "Icon pack");
    await user.click(screen.getByText("Monthly", { exact: true }));
    const amount = screen.getByLabelText(/^Amount \(USD\)/);
    await user.type(amount, "12.5");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    await waitFor(() => expect(describedBy(amount)).toContain("Input should be a round amount."));
    expect(posts(requests, "/v1/products/")[0]?.body).toEqual({
      name: "Icon pack",
      description: null,
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_currency: "usd", price_amount: 1250 }],
      attached_custom_fields: [],
      medias: [],
      metadata: {},
    });
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("product form: a separate meter cycle", () => {
  it("a yearly product may bill its usage monthly: the choice is sent, and the server's refusal lands at the field", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/": page([]),
      "/v1/benefits/": page([]),
      "/v1/custom-fields/": page([]),
      "/v1/products/": (r: { method: string }) =>
        r.method === "POST"
          ? unprocessable(
              ["body", "meter_interval"],
              "Separate meter cycling is not enabled for this organization.",
            )
          : page([]),
    });
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    await user.type(await screen.findByLabelText(/^Name/, {}, slow), "Pro yearly");
    // One-time products have no usage period to choose.
    expect(screen.queryAllByLabelText(/^Usage billed/)).toEqual([]);
    await user.click(screen.getByText("Yearly", { exact: true }));
    const cycle = (await screen.findAllByLabelText(/^Usage billed/))[0]!;
    await user.click(cycle);
    await user.click(await screen.findByRole("option", { name: "Separately, monthly" }));
    await user.type(screen.getByLabelText(/^Amount \(USD\)/), "120");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    await waitFor(() =>
      expect(describedBy(cycle)).toContain("Separate meter cycling is not enabled for this organization."),
    );
    expect(posts(requests, "/v1/products/")[0]?.body).toMatchObject({
      recurring_interval: "year",
      meter_interval: "month",
    });
  });
});

describe("product form: unarchiving", () => {
  it("an archived product offers Unarchive (no Archive); it sends is_archived false at once and shows the product live", async () => {
    let archived = true;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/": page([]),
      "/v1/benefits/": page([]),
      "/v1/custom-fields/": page([]),
      "/v1/products/prod-1": () => ({ ...product, is_archived: archived }),
      "PATCH /v1/products/prod-1": () => {
        archived = false;
        return { ...product, is_archived: false };
      },
    });
    const { user } = renderApp("/dashboard/acme/products/prod-1", { session });
    const unarchive = await screen.findByRole("button", { name: "Unarchive" }, slow);
    expect(screen.getByText("Archived")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Archive" })).toBeNull();
    await user.click(unarchive);
    // Live again: Archive is back, the badge gone; no confirmation was asked.
    await screen.findByRole("button", { name: "Archive" });
    expect(screen.queryByText("Archived")).toBeNull();
    expect(screen.queryByRole("button", { name: "Unarchive" })).toBeNull();
    expect(screen.queryByRole("dialog")).toBeNull();
    const patches = requests.filter((r) => r.method === "PATCH");
    expect(patches.map((r) => [r.path, r.body])).toEqual([["/v1/products/prod-1", { is_archived: false }]]);
  });

  it("a refused unarchive shows the server's words and keeps the product archived", async () => {
    stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/": page([]),
      "/v1/benefits/": page([]),
      "/v1/custom-fields/": page([]),
      "/v1/products/prod-1": { ...product, is_archived: true },
      "PATCH /v1/products/prod-1": answerWith(403, { error: "NotPermitted", detail: "Not now." }),
    });
    const { user } = renderApp("/dashboard/acme/products/prod-1", { session });
    await user.click(await screen.findByRole("button", { name: "Unarchive" }, slow));
    expect((await screen.findByRole("alert")).textContent).toContain("Not now.");
    expect(screen.getByText("Archived")).toBeTruthy();
  });
});

describe("product form: billing by day and by week", () => {
  it("offers daily and weekly billing and sends the interval chosen", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/": page([]),
      "/v1/benefits/": page([]),
      "/v1/custom-fields/": page([]),
      "/v1/products/": (r: { method: string }) => (r.method === "POST" ? product : page([])),
    });
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    await user.type(await screen.findByLabelText(/^Name/, {}, slow), "Daily digest");
    expect(screen.getByText("Daily", { exact: true })).toBeTruthy();
    await user.click(screen.getByText("Weekly", { exact: true }));
    await user.type(screen.getByLabelText(/^Amount \(USD\)/), "3");
    expect(screen.getByTestId("price-preview-0").textContent).toContain("/ week");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    await waitFor(() => expect(posts(requests, "/v1/products/")).toHaveLength(1));
    expect(posts(requests, "/v1/products/")[0]?.body).toMatchObject({
      name: "Daily digest",
      recurring_interval: "week",
      prices: [{ amount_type: "fixed", price_currency: "usd", price_amount: 300 }],
    });
  });
});

describe("refund form", () => {
  it("an emptied amount stays empty and is refused at its field; a 422 on the comment lands there", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/orders/ord-1": order,
      "/v1/refunds/": (r: { method: string }) =>
        r.method === "POST"
          ? unprocessable(["body", "comment"], "Keep it under 2000 characters.")
          : page([refund]),
    });
    const { user } = renderApp("/dashboard/acme/orders/ord-1", { session });
    await user.click(await screen.findByRole("button", { name: "Refund" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Refund this order" });
    await user.click(within(dialog).getAllByLabelText(/^Reason/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Other" }));
    await user.click(within(dialog).getByRole("checkbox", { name: /Refund the whole/ }));
    const amount = within(dialog).getByLabelText(/^Amount \(EUR\)/) as HTMLInputElement;
    expect(amount.value).toBe("20");
    await user.clear(amount);
    expect(amount.value).toBe("");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() => expect(describedBy(amount)).toContain("Enter the amount to refund."));
    expect(amount.value).toBe("");
    expect(posts(requests, "/v1/refunds/")).toEqual([]);

    await user.type(amount, "5");
    const comment = within(dialog).getByLabelText("Internal comment");
    await user.type(comment, "Goodwill");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() => expect(describedBy(comment)).toContain("Keep it under 2000 characters."));
    expect(posts(requests, "/v1/refunds/")[0]?.body).toEqual({
      order_id: "ord-1",
      reason: "other",
      amount: 500,
      comment: "Goodwill",
      revoke_benefits: false,
    });
  });
});

describe("checkout link form", () => {
  it("the contract's bound on the label shows at it; a 422 on one product lands at Products", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/products/": page([product]),
      "/v1/discounts/": page([]),
      "/v1/checkout-links/": (r: { method: string }) =>
        r.method === "POST" ? unprocessable(["body", "products", 0], "Product is archived.") : page([]),
    });
    const { user } = renderApp("/dashboard/acme/checkout-links", { session });
    await user.click(await screen.findByRole("button", { name: "New checkout link" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New checkout link" });
    const products = within(dialog).getAllByLabelText(/^Products/)[0]!;
    await user.click(products);
    await user.click(await screen.findByRole("option", { name: "Starter" }));
    const label = within(dialog).getByLabelText(/^Label/);
    await user.click(label);
    await user.paste("x".repeat(257));
    await user.click(within(dialog).getByRole("button", { name: "Create link" }));
    await waitFor(() => expect(describedBy(label)).toMatch(/256/));
    expect(posts(requests, "/v1/checkout-links/")).toEqual([]);

    await user.clear(label);
    await user.type(label, "Pricing page");
    await user.click(within(dialog).getByRole("button", { name: "Create link" }));
    await waitFor(() => expect(describedBy(products)).toContain("Product is archived."));
    expect(posts(requests, "/v1/checkout-links/")[0]?.body).toMatchObject({
      payment_processor: "stripe",
      products: ["prod-1"],
      label: "Pricing page",
    });
  });
});

describe("customer form", () => {
  it("the contract's countries and US states are checked at their fields; a 422 on the name lands there", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/customers/": (r: { method: string }) =>
        r.method === "POST" ? unprocessable(["body", "name"], "Too long for a name.") : page([]),
    });
    const { user } = renderApp("/dashboard/acme/customers", { session });
    await user.click(await screen.findByRole("button", { name: "New customer" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New customer" });
    await user.type(within(dialog).getByLabelText(/^E-mail/), "ada@buyer.test");
    const country = within(dialog).getByLabelText("Country");
    await user.type(country, "ZZ");
    await user.click(within(dialog).getByRole("button", { name: "Create customer" }));
    await waitFor(() => expect(describedBy(country)).toContain("A two-letter ISO 3166-1 country code"));

    await user.clear(country);
    await user.type(country, "us");
    const state = within(dialog).getByLabelText("State or region");
    await user.type(state, "Atlantis");
    await user.click(within(dialog).getByRole("button", { name: "Create customer" }));
    await waitFor(() => expect(describedBy(state)).toContain("Invalid US state"));
    expect(posts(requests, "/v1/customers/")).toEqual([]);

    await user.clear(state);
    await user.type(state, "NY");
    const name = within(dialog).getByLabelText("Name");
    await user.type(name, "Ada");
    await user.click(within(dialog).getByRole("button", { name: "Create customer" }));
    await waitFor(() => expect(describedBy(name)).toContain("Too long for a name."));
    expect(posts(requests, "/v1/customers/")[0]?.body).toEqual({
      email: "ada@buyer.test",
      name: "Ada",
      billing_address: {
        line1: null,
        line2: null,
        postal_code: null,
        city: null,
        state: "NY",
        country: "US",
      },
      metadata: {},
    });
  });
});

describe("billing settings form", () => {
  const org = {
    id: "org-1",
    created_at: "2026-01-01T10:00:00Z",
    modified_at: null,
    name: "Acme",
    slug: "acme",
    email: "hello@acme.test",
    website: null,
    socials: [],
    feature_settings: { issue_funding_enabled: false, usage_based_billing_enabled: false },
    subscription_settings: {
      allow_multiple_subscriptions: false,
      allow_customer_updates: true,
      proration_behavior: "prorate",
      benefit_revocation_grace_period: 0,
      prevent_trial_abuse: false,
    },
  };

  it("the contract's address rule shows at Website; a 422 on a social link lands at that link", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("admin"),
      "/v1/organizations/org-1": (r: { method: string }) =>
        r.method === "PATCH"
          ? unprocessable(["body", "socials", 0, "url"], "This host is not allowed.")
          : org,
    });
    const { user } = renderApp("/dashboard/acme/settings/billing", { session });
    const website = await screen.findByLabelText("Website", {}, slow);
    await user.type(website, "acme dot test");
    await user.click(screen.getByRole("button", { name: "Save billing settings" }));
    await waitFor(() => expect(describedBy(website)).toMatch(/URL/i));
    expect(requests.some((r) => r.method === "PATCH")).toBe(false);

    await user.clear(website);
    await user.type(website, "https://acme.test");
    await user.click(screen.getByRole("button", { name: "Add a link" }));
    const link = screen.getByLabelText("Link 1");
    await user.type(link, "https://x.com/acme");
    await user.click(screen.getByRole("button", { name: "Save billing settings" }));
    await waitFor(() => expect(describedBy(link)).toContain("This host is not allowed."));
    expect(requests.find((r) => r.method === "PATCH")?.body).toMatchObject({
      email: "hello@acme.test",
      website: "https://acme.test",
      socials: [{ platform: "x", url: "https://x.com/acme" }],
      subscription_settings: { proration_behavior: "prorate" },
    });
  });
});

describe("webhook endpoint form", () => {
  it("checks the events and the name by the contract; a 422 on the URL lands at URL", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/webhooks/endpoints": (r: { method: string }) =>
        r.method === "POST" ? unprocessable(["body", "url"], "This host does not resolve.") : page([]),
      "/v1/webhooks/endpoints/": page([]),
    });
    const { user } = renderApp("/dashboard/acme/settings/webhooks", { session });
    await user.click(await screen.findByRole("button", { name: "Add endpoint" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Add a webhook endpoint" });
    const url = within(dialog).getByLabelText(/^URL/);
    await user.type(url, "https://hooks.acme.test/kassa");
    const name = within(dialog).getByLabelText("Name");
    await user.click(name);
    await user.paste("n".repeat(256));
    await user.click(within(dialog).getByRole("button", { name: "Add endpoint" }));
    await waitFor(() => expect(describedBy(name)).toMatch(/255/));
    expect(within(dialog).getByText("Choose at least one event.")).toBeTruthy();
    expect(posts(requests, "/v1/webhooks/endpoints")).toEqual([]);

    await user.clear(name);
    await user.type(name, "Receiver");
    await user.click(within(dialog).getByRole("checkbox", { name: "order.paid" }));
    await user.click(within(dialog).getByRole("button", { name: "Add endpoint" }));
    await waitFor(() => expect(describedBy(url)).toContain("This host does not resolve."));
    expect(posts(requests, "/v1/webhooks/endpoints")[0]?.body).toEqual({
      url: "https://hooks.acme.test/kassa",
      name: "Receiver",
      format: "raw",
      events: ["order.paid"],
    });
  });
});

describe("webhook replay form", () => {
  it("a range that ends before it starts is refused at Until by the contract; a 422 lands at From", async () => {
    const endpoint = {
      id: "wh-1",
      created_at: "2026-03-01T10:00:00Z",
      modified_at: null,
      url: "https://hooks.acme.test/kassa",
      name: "Receiver",
      format: "raw",
      secret: "whsec_****",
      organization_id: "org-1",
      events: ["order.paid"],
      enabled: true,
    };
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/webhooks/endpoints/wh-1": endpoint,
      "/v1/webhooks/deliveries/": page([]),
      "/v1/webhooks/endpoints/wh-1/replay": unprocessable(["body", "start"], "Older than 30 days."),
    });
    const { user } = renderApp("/dashboard/acme/settings/webhooks/wh-1", { session });
    const from = await screen.findByLabelText("From", {}, slow);
    const until = screen.getByLabelText("Until");
    await user.type(from, "2026-03-02T10:00");
    await user.type(until, "2026-03-01T10:00");
    await user.click(screen.getByRole("button", { name: "Replay" }));
    await waitFor(() => expect(describedBy(until)).toContain("start must be before end"));
    expect(posts(requests, "/v1/webhooks/endpoints/wh-1/replay")).toEqual([]);

    await user.clear(until);
    await user.type(until, "2026-03-03T10:00");
    await user.click(screen.getByRole("button", { name: "Replay" }));
    await waitFor(() => expect(describedBy(from)).toContain("Older than 30 days."));
    expect(posts(requests, "/v1/webhooks/endpoints/wh-1/replay")[0]?.body).toMatchObject({
      only_failed: false,
    });
  });
});

describe("checkout form", () => {
  const pwyw = {
    ...product,
    id: "prod-2",
    name: "Tip jar",
    recurring_interval: null,
    is_recurring: false,
    prices: [
      {
        ...product.prices[0]!,
        id: "price-2",
        product_id: "prod-2",
        amount_type: "custom" as const,
        minimum_amount: 100,
        maximum_amount: null,
        preset_amount: null,
        type: "one_time" as const,
        recurring_interval: null,
      },
    ],
  };

  it("a negative starting amount is refused at its field; a 422 on the discount lands at Discount", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/products/": page([pwyw]),
      "/v1/discounts/": page([]),
      "/v1/customers/": page([]),
      "/v1/checkouts/": (r: { method: string }) =>
        r.method === "POST" ? unprocessable(["body", "discount_id"], "Discount does not apply.") : page([]),
    });
    const { user } = renderApp("/dashboard/acme/checkouts", { session });
    await user.click(await screen.findByRole("button", { name: "New checkout" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New checkout" });
    await user.click(within(dialog).getAllByLabelText(/^Product/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Tip jar" }));
    const amount = within(dialog).getByLabelText(/^Amount \(USD\)/);
    await user.type(amount, "-3");
    await user.click(within(dialog).getByRole("button", { name: "Create checkout" }));
    await waitFor(() => expect(describedBy(amount)).toContain("The amount cannot be negative."));
    expect(posts(requests, "/v1/checkouts/")).toEqual([]);

    await user.clear(amount);
    await user.type(amount, "7.5");
    await user.click(within(dialog).getByRole("button", { name: "Create checkout" }));
    const discount = within(dialog).getAllByLabelText(/^Discount/)[0]!;
    await waitFor(() => expect(describedBy(discount)).toContain("Discount does not apply."));
    expect(posts(requests, "/v1/checkouts/")[0]?.body).toEqual({
      products: ["prod-2"],
      customer_id: null,
      discount_id: null,
      success_url: null,
      amount: 750,
    });
  });
});
