import { screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { FilterBuilder, validateFilter } from "../src/features/billing/filter-builder";
import {
  describePrice,
  type PriceDraft,
  PriceEditor,
  pricesPayload,
  validatePrices,
} from "../src/features/billing/price-editor";
import { type Filter, type Price, V1Error } from "../src/lib/v1";
import { renderApp, sessionFor, stubServer } from "./app";
import { organizationFixture } from "./fixtures";
import { describedBy, renderWithTheme } from "./render";

const meters = [{ id: "meter-1", name: "API requests" }];

function PriceHarness({
  initial,
  serverErrors = {},
  interval = null,
}: {
  initial: PriceDraft[];
  serverErrors?: Record<string, string>;
  interval?: "month" | "year" | null;
}) {
  const [prices, setPrices] = useState(initial);
  const errors = { ...validatePrices(prices, "usd"), ...serverErrors };
  return (
    <>
      <PriceEditor
        prices={prices}
        onChange={setPrices}
        currency="usd"
        interval={interval}
        meters={meters}
        errors={errors}
      />
      <output data-testid="payload">{JSON.stringify(pricesPayload(prices, "usd"))}</output>
    </>
  );
}

const payload = () => JSON.parse(screen.getByTestId("payload").textContent ?? "[]");

describe("price editor", () => {
  it("a fixed price: typed in dollars, sent in cents, previewed per interval; required and not negative", async () => {
    const { user } = renderWithTheme(<PriceHarness initial={[{ amount_type: "fixed" }]} interval="month" />);
    const amount = screen.getByLabelText(/^Amount \(USD\)/);
    expect(describedBy(amount)).toContain("Enter an amount.");
    await user.type(amount, "12.5");
    expect(screen.getByText("Buyer pays: $12.50 / month")).toBeTruthy();
    expect(payload()).toEqual([{ amount_type: "fixed", price_currency: "usd", price_amount: 1250 }]);
    expect(describedBy(amount)).not.toContain("Enter an amount.");
  });

  it("a free price sends no amount and says Free", () => {
    renderWithTheme(<PriceHarness initial={[{ amount_type: "free" }]} />);
    expect(screen.getByText("Buyer pays: Free")).toBeTruthy();
    expect(payload()).toEqual([{ amount_type: "free", price_currency: "usd" }]);
  });

  it("pay what you want: minimum <= suggested <= maximum, each refusal at its field", async () => {
    const { user } = renderWithTheme(<PriceHarness initial={[{ amount_type: "custom" }]} />);
    const min = screen.getByLabelText("Minimum (USD)");
    const preset = screen.getByLabelText("Suggested (USD)");
    const max = screen.getByLabelText("Maximum (USD)");
    await user.type(min, "10");
    await user.type(preset, "5");
    expect(describedBy(preset)).toContain("The suggested amount cannot be below the minimum.");
    await user.clear(preset);
    await user.type(preset, "15");
    await user.type(max, "12");
    expect(describedBy(preset)).toContain("The suggested amount cannot be above the maximum.");
    await user.clear(max);
    await user.type(max, "8");
    expect(describedBy(max)).toContain("The maximum cannot be below the minimum.");
    await user.clear(max);
    await user.type(max, "50");
    expect(describedBy(preset)).toBe("");
    expect(describedBy(max)).toBe("");
    expect(
      screen.getByText("Buyer pays: Pay what you want, from $10.00, suggested $15.00, up to $50.00"),
    ).toBeTruthy();
    expect(payload()).toEqual([
      {
        amount_type: "custom",
        price_currency: "usd",
        minimum_amount: 1000,
        preset_amount: 1500,
        maximum_amount: 5000,
      },
    ]);
  });

  it("a metered price needs a meter and a positive unit price; decimals of a cent survive; the cap bounds the preview", async () => {
    const { user } = renderWithTheme(<PriceHarness initial={[{ amount_type: "metered_unit" }]} />);
    const unit = screen.getByLabelText(/^Price per unit \(USD\)/);
    expect(describedBy(unit)).toContain("Enter the price of one unit.");
    expect(screen.getByText("Choose the meter that counts the usage.")).toBeTruthy();
    await user.type(unit, "0");
    expect(describedBy(unit)).toContain("The unit price must be more than zero.");
    await user.clear(unit);
    await user.type(unit, "0.0015");
    await user.click(screen.getAllByLabelText(/^Meter/)[0]!);
    await user.click(await screen.findByRole("option", { name: "API requests" }));
    await user.type(screen.getByLabelText("Cap (USD)"), "1");
    expect(payload()).toEqual([
      {
        amount_type: "metered_unit",
        price_currency: "usd",
        meter_id: "meter-1",
        unit_amount: "0.15",
        cap_amount: 100,
      },
    ]);
    expect(screen.getByTestId("price-preview-0").textContent).toMatch(
      /per unit of API requests, at most \$1\.00 \(1,000 units: \$1\.00\)/,
    );
  });

  it("one static price per product; metered prices may join it; the server's 422 lands at its field", async () => {
    const { user } = renderWithTheme(
      <PriceHarness
        initial={[{ amount_type: "fixed", price_amount: 5 }]}
        serverErrors={{ "prices.0.price_amount": "Input should be less than or equal to 99999999" }}
      />,
    );
    expect(describedBy(screen.getByLabelText(/^Amount \(USD\)/))).toContain(
      "Input should be less than or equal to 99999999",
    );
    expect(screen.queryByRole("button", { name: "Add a price" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Add a metered price" }));
    expect(screen.getAllByRole("group", { name: /^Price \d$/ })).toHaveLength(2);
    expect(
      validatePrices([{ amount_type: "fixed", price_amount: 1 }, { amount_type: "free" }], "usd").prices,
    ).toMatch(/one free, fixed or pay-what-you-want price/);
    expect(validatePrices([], "usd").prices).toBe("Add at least one price.");
    expect(
      validatePrices([{ amount_type: "fixed", price_amount: 1_000_000 }], "usd")["prices.0.price_amount"],
    ).toMatch(/^At most/);
  });

  it("a stored price left unchanged is sent as its id; a changed one as a new price", () => {
    const stored: Price = {
      id: "price-1",
      created_at: "2026-01-01T00:00:00Z",
      modified_at: null,
      amount_type: "fixed",
      price_amount: 900,
      source: "catalog",
      price_currency: "eur",
      tax_behavior: null,
      is_archived: false,
      product_id: "p",
      type: "one_time",
      recurring_interval: null,
    };
    expect(
      pricesPayload([{ id: "price-1", amount_type: "fixed", price_amount: 9 }], "eur", [stored]),
    ).toEqual([{ id: "price-1" }]);
    expect(
      pricesPayload([{ id: "price-1", amount_type: "fixed", price_amount: 10 }], "eur", [stored]),
    ).toEqual([{ amount_type: "fixed", price_currency: "eur", price_amount: 1000 }]);
    expect(describePrice({ amount_type: "fixed", price_amount: 1000 }, "jpy", "year")).toMatch(/1,000/);
  });
});

function FilterHarness({ initial }: { initial: Filter }) {
  const [filter, setFilter] = useState(initial);
  return (
    <>
      <FilterBuilder filter={filter} onChange={setFilter} errors={validateFilter(filter)} />
      <output data-testid="filter">{JSON.stringify(filter)}</output>
    </>
  );
}
const filterOut = () => JSON.parse(screen.getByTestId("filter").textContent ?? "{}");

describe("meter filter builder", () => {
  it("builds nested and/or groups with string, number and boolean values", async () => {
    const { user } = renderWithTheme(<FilterHarness initial={{ conjunction: "and", clauses: [] }} />);
    expect(screen.getByText(/No condition: every event counts/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Add a condition" }));
    const first = screen.getByRole("group", { name: "Condition 1" });
    expect(describedBy(within(first).getByLabelText("Property"))).toContain("Name the event property.");
    await user.type(within(first).getByLabelText("Property"), "name");
    await user.type(within(first).getByRole("textbox", { name: "Value" }), "api_call");

    await user.click(screen.getByRole("button", { name: "Add a group" }));
    const group = screen.getByRole("group", { name: "Group at level 1" });
    const inner = within(group).getByRole("group", { name: "Condition 1 of level 1" });
    await user.type(within(inner).getByLabelText("Property"), "tokens");
    await user.click(within(inner).getAllByLabelText("Operator")[0]!);
    await user.click(await screen.findByRole("option", { name: "at least" }));
    await user.click(within(inner).getAllByLabelText("Value type")[0]!);
    await user.click(await screen.findByRole("option", { name: "number" }));
    const value = within(inner).getByRole("textbox", { name: "Value" });
    await user.clear(value);
    await user.type(value, "100");

    await user.click(within(group).getByRole("button", { name: "Add a condition to level 1" }));
    const second = within(group).getByRole("group", { name: "Condition 2 of level 1" });
    await user.type(within(second).getByLabelText("Property"), "cached");
    await user.click(within(second).getAllByLabelText("Value type")[0]!);
    await user.click(await screen.findByRole("option", { name: "true/false" }));
    await user.click(within(second).getByRole("switch", { name: "Value" }));

    expect(filterOut()).toEqual({
      conjunction: "and",
      clauses: [
        { property: "name", operator: "eq", value: "api_call" },
        {
          conjunction: "or",
          clauses: [
            { property: "tokens", operator: "gte", value: 100 },
            { property: "cached", operator: "eq", value: true },
          ],
        },
      ],
    });
    await user.click(screen.getAllByRole("radio", { name: "any" })[0]!);
    expect(filterOut().conjunction).toBe("or");
    await user.click(screen.getByRole("button", { name: "Remove group at level 1" }));
    expect(filterOut().clauses).toHaveLength(1);
  });

  it("reports errors at the API's paths for nested clauses", () => {
    expect(
      validateFilter({
        conjunction: "and",
        clauses: [{ conjunction: "or", clauses: [{ property: " ", operator: "eq", value: 1.5 }] }],
      }),
    ).toEqual({
      "filter.clauses.0.clauses.0.property": "Name the event property.",
      "filter.clauses.0.clauses.0.value": "A whole number.",
    });
  });
});

describe("Polar errors", () => {
  it("maps a 422's detail loc to field paths", () => {
    const e = new V1Error(422, "RequestValidationError", "x", [
      { type: "too_big", loc: ["body", "prices", 0, "price_amount"], msg: "too big", input: 1e9 },
      { type: "too_small", loc: ["body", "name"], msg: "too short", input: "x" },
    ]);
    expect(e.fieldErrors()).toEqual({ "prices.0.price_amount": "too big", name: "too short" });
  });
});

describe("billing pages by role", () => {
  const session = sessionFor();
  const product = {
    id: "prod-1",
    created_at: "2026-01-01T10:00:00Z",
    modified_at: null,
    name: "Starter",
    description: null,
    recurring_interval: "month",
    is_recurring: true,
    is_archived: false,
    organization_id: "org-1",
    metadata: {},
    benefits: [],
    attached_custom_fields: [],
    prices: [
      {
        id: "price-1",
        created_at: "2026-01-01T10:00:00Z",
        modified_at: null,
        amount_type: "fixed",
        price_amount: 1900,
        price_currency: "usd",
        is_archived: false,
        product_id: "prod-1",
        type: "recurring",
        recurring_interval: "month",
      },
    ],
  };
  const answers = (role: string, products = [product]) => {
    const organization = organizationFixture();
    organization.members = [
      {
        ...organization.members[0]!,
        userId: session.user.id,
        role,
        user: { ...organization.members[0]!.user, id: session.user.id },
      },
    ];
    return {
      "/api/auth/get-session": session,
      "/api/auth/organization/list": [
        { id: "org-1", name: "Acme", slug: "acme", logo: null, createdAt: organization.createdAt },
      ],
      "/api/auth/organization/get-full-organization": organization,
      "/api/auth/organization/set-active": organization,
      "/v1/products/": { items: products, pagination: { total_count: products.length, max_page: 1 } },
      "/v1/webhooks/endpoints/": { items: [], pagination: { total_count: 0, max_page: 0 } },
    };
  };

  it("an owner gets the new-product button; the list shows money in its currency, filters from the address", async () => {
    const { requests } = stubServer(answers("owner"));
    renderApp("/dashboard/acme/products?kind=recurring&sorting=name", { session });
    await screen.findByRole("link", { name: "Starter" }, { timeout: 8000 });
    expect(screen.getByRole("link", { name: "New product" })).toBeTruthy();
    expect(screen.getByText("$19.00 / month")).toBeTruthy();
    const list = requests.find((r) => r.path === "/v1/products/");
    expect(list?.query.get("organization_id")).toBe("org-1");
    expect(list?.query.get("is_recurring")).toBe("true");
    expect(list?.query.get("sorting")).toBe("name");
  });

  it("a member reads the catalogue but is offered no write, and a product opens read-only", async () => {
    stubServer({
      ...answers("member"),
      "/v1/products/prod-1": product,
      "/v1/meters/": { items: [], pagination: { total_count: 0, max_page: 0 } },
    });
    const { router } = renderApp("/dashboard/acme/products", { session });
    await screen.findByRole("link", { name: "Starter" }, { timeout: 8000 });
    expect(screen.queryByRole("link", { name: "New product" })).toBeNull();
    await router.navigate({
      to: "/dashboard/$slug/products/$productId",
      params: { slug: "acme", productId: "prod-1" },
    });
    await screen.findByText(
      "Your role lets you see products; an owner or admin changes them.",
      {},
      { timeout: 8000 },
    );
    expect(screen.queryByRole("button", { name: "Save product" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Archive" })).toBeNull();
    expect((screen.getByLabelText(/^Name/) as HTMLInputElement).disabled).toBe(true);
  });

  it("empty states say what to do next, by role", async () => {
    stubServer(answers("admin", []));
    renderApp("/dashboard/acme/settings/webhooks", { session });
    await screen.findByText(/Add the address of your server/, {}, { timeout: 8000 });
    expect(screen.getByRole("button", { name: "Add endpoint" })).toBeTruthy();
  });

  it("a member sees no add-endpoint button and is told who adds them", async () => {
    stubServer(answers("member", []));
    renderApp("/dashboard/acme/settings/webhooks", { session });
    await screen.findByText(
      "An owner or admin of this organization adds webhook endpoints.",
      {},
      { timeout: 8000 },
    );
    await waitFor(() => expect(screen.queryByRole("button", { name: "Add endpoint" })).toBeNull());
  });

  const empty = { items: [], pagination: { total_count: 0, max_page: 0 } };
  const billingOrg = {
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
    },
  };

  it("meters and benefits: owners create, members are told who does", async () => {
    stubServer({ ...answers("owner"), "/v1/meters/": empty });
    const first = renderApp("/dashboard/acme/meters", { session });
    await screen.findByText(/Create a meter to charge for usage/, {}, { timeout: 8000 });
    expect(screen.getByRole("button", { name: "New meter" })).toBeTruthy();
    first.unmount();
    stubServer({ ...answers("member"), "/v1/benefits/": empty });
    renderApp("/dashboard/acme/benefits", { session });
    await screen.findByText(
      "An owner or admin of this organization creates benefits.",
      {},
      { timeout: 8000 },
    );
    expect(screen.queryByRole("button", { name: "New benefit" })).toBeNull();
  });

  it("a benefit's grants: who has it, a failure in words, and a retry for owners", async () => {
    const benefit = {
      id: "ben-1",
      created_at: "2026-01-01T10:00:00Z",
      modified_at: null,
      type: "github_repository",
      description: "Repository",
      selectable: true,
      deletable: true,
      is_deleted: false,
      organization_id: "org-1",
      metadata: {},
      properties: { repository_owner: "acme", repository_name: "sdk", permission: "pull" },
    };
    const grant = (id: string, email: string, extra: Record<string, unknown>) => ({
      id,
      created_at: "2026-02-01T10:00:00Z",
      modified_at: null,
      granted_at: null,
      is_granted: false,
      revoked_at: null,
      is_revoked: false,
      subscription_id: null,
      order_id: "order-1",
      customer_id: `cus-${id}`,
      member_id: null,
      benefit_id: "ben-1",
      error: null,
      properties: {},
      customer: { id: `cus-${id}`, email },
      member: null,
      benefit,
      ...extra,
    });
    const failed = grant("g-1", "ada@example.com", {
      error: {
        message: "The customer needs to connect their GitHub account",
        type: "BenefitActionRequiredError",
        timestamp: "2026-02-01T10:00:00Z",
      },
    });
    const ok = grant("g-2", "bob@example.com", { granted_at: "2026-02-01T10:00:00Z", is_granted: true });
    const { requests } = stubServer({
      ...answers("owner"),
      "/v1/benefits/": { items: [benefit], pagination: { total_count: 1, max_page: 1 } },
      "/v1/benefits/ben-1/grants": { items: [failed, ok], pagination: { total_count: 2, max_page: 1 } },
      "POST /v1/benefit-grants/g-1/retry": failed,
    });
    const { user } = renderApp("/dashboard/acme/benefits", { session });
    await user.click(await screen.findByRole("button", { name: "Grants of Repository" }, { timeout: 8000 }));
    const table = await screen.findByRole("table", { name: "Grants" });
    expect(within(table).getByText("ada@example.com")).toBeTruthy();
    expect(within(table).getByText("The customer needs to connect their GitHub account")).toBeTruthy();
    expect(within(table).getByText("Failed")).toBeTruthy();
    expect(within(table).getByText("Granted")).toBeTruthy();
    // Only the failed grant can be retried.
    expect(within(table).queryByRole("button", { name: "Retry the grant to bob@example.com" })).toBeNull();
    await user.click(within(table).getByRole("button", { name: "Retry the grant to ada@example.com" }));
    await waitFor(() =>
      expect(requests.some((r) => r.method === "POST" && r.path === "/v1/benefit-grants/g-1/retry")).toBe(
        true,
      ),
    );
    await screen.findByText(/The grant is being tried again/);
  });

  it("billing settings are read-only for a member and editable for an admin", async () => {
    stubServer({ ...answers("member"), "/v1/organizations/org-1": billingOrg });
    const first = renderApp("/dashboard/acme/settings/billing", { session });
    await screen.findByText("Only owners and admins can change these settings.", {}, { timeout: 8000 });
    expect((screen.getByLabelText("Support e-mail") as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Save billing settings" })).toBeNull();
    first.unmount();
    const { requests } = stubServer({ ...answers("admin"), "/v1/organizations/org-1": billingOrg });
    const { user } = renderApp("/dashboard/acme/settings/billing", { session });
    const email = (await screen.findByLabelText("Support e-mail", {}, { timeout: 8000 })) as HTMLInputElement;
    expect(email.value).toBe("hello@acme.test");
    await user.clear(email);
    await user.type(email, "billing@acme.test");
    await user.click(screen.getByRole("button", { name: "Save billing settings" }));
    await waitFor(() => expect(requests.some((r) => r.method === "PATCH")).toBe(true));
    const patch = requests.find((r) => r.method === "PATCH");
    expect(patch?.path).toBe("/v1/organizations/org-1");
    expect(patch?.query.get("organization_id")).toBe("org-1");
    expect(patch?.body).toMatchObject({
      email: "billing@acme.test",
      subscription_settings: { proration_behavior: "prorate" },
    });
  });
});
