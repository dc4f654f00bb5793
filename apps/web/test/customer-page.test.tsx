import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CustomerMeter, CustomerSummary, Meter, UsageEvent } from "../src/lib/v1";
import { renderApp, stubServer } from "./app";
import {
  customer,
  customerState,
  dashboardAnswers,
  order,
  page,
  refund,
  session,
  subscription,
} from "./commerce-fixtures";
import { slow } from "./render";

/** The file's first render also loads the lazy route modules: on a busy machine, 8 s is close. */
const cold = { timeout: 13_000 };

/** The viewer's locale, as the page formats dates. */
const day = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date(iso));

const summary: CustomerSummary = {
  customer_id: "cus-1",
  currency: "eur",
  lifetime_value: 4300,
  refunded_amount: 600,
  orders: 3,
  first_order_at: "2025-11-20T09:00:00Z",
  last_order_at: "2026-03-01T10:00:00Z",
  totals: [
    { currency: "eur", lifetime_value: 4300, refunded_amount: 600, orders: 2 },
    { currency: "usd", lifetime_value: 1900, refunded_amount: 0, orders: 1 },
  ],
};

const usage: UsageEvent = {
  id: "evt-1",
  timestamp: "2026-03-04T08:30:00Z",
  organization_id: "org-1",
  customer_id: "cus-1",
  customer: null,
  external_customer_id: null,
  external_id: null,
  child_count: 0,
  parent_id: null,
  label: "ai.completion",
  name: "ai.completion",
  source: "user",
  metadata: {},
};

const meter: Meter = {
  id: "meter-1",
  created_at: "2026-03-01T10:00:00Z",
  modified_at: null,
  name: "API calls",
  unit: "scalar",
  custom_label: null,
  custom_multiplier: null,
  filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
  aggregation: { func: "count" },
  metadata: {},
  organization_id: "org-1",
  archived_at: null,
};

/** 1,500 used against 1,000 credited: a balance of −500, which the ledger's entries sum to. */
const customerMeter: CustomerMeter = {
  id: "cm-1",
  created_at: "2026-03-01T10:00:00Z",
  modified_at: null,
  customer_id: customer.id,
  meter_id: meter.id,
  consumed_units: 1500,
  credited_units: 1000,
  balance: -500,
  customer,
  meter,
};

const ledgerEntry = (id: string, kind: string, units: number, reason: string, open = false) => ({
  id,
  created_at: "2026-03-02T10:00:00Z",
  customer_meter_id: "cm-1",
  period: 0,
  kind,
  units,
  reason,
  grant_id: null,
  open,
});

function customerPage(overrides: Record<string, unknown> = {}) {
  return stubServer({
    ...dashboardAnswers("member"),
    "/v1/customers/cus-1": customer,
    "/v1/customers/cus-1/state": customerState,
    "/v1/customers/cus-1/summary": summary,
    "/v1/customer-meters/": page([]),
    "/v1/orders/": page([order]),
    "/v1/subscriptions/": page([subscription]),
    "/v1/refunds/": page([refund]),
    "/v1/events/": page([usage]),
    ...overrides,
  });
}

describe("the customer page", () => {
  it("sums the customer up: lifetime value after refunds in its currency, orders, first and last purchase, active subscriptions", async () => {
    const { requests } = customerPage();
    renderApp("/dashboard/acme/customers/cus-1", { session });
    await screen.findByRole("heading", { name: "Ada Buyer" }, cold);
    const ltv = await screen.findByRole("group", { name: "Lifetime value" }, slow);
    expect(within(ltv).getByText("€43.00")).toBeTruthy();
    expect(within(ltv).getByText("After €6.00 refunded · Also $19.00")).toBeTruthy();
    expect(within(screen.getByRole("group", { name: "Orders" })).getByText("3")).toBeTruthy();
    expect(
      within(screen.getByRole("group", { name: "First purchase" })).getByText(
        day(summary.first_order_at ?? ""),
      ),
    ).toBeTruthy();
    expect(
      within(screen.getByRole("group", { name: "Last purchase" })).getByText(
        day(summary.last_order_at ?? ""),
      ),
    ).toBeTruthy();
    expect(
      await within(screen.getByRole("group", { name: "Active subscriptions" })).findByText(
        String(customerState.active_subscriptions.length),
      ),
    ).toBeTruthy();
    // The figures come from the server's aggregate, not from summing pages of orders.
    expect(requests.some((r) => r.path === "/v1/customers/cus-1/summary")).toBe(true);
  });

  it("shows orders, subscriptions, cancellations, refunds and usage newest first, each linking to its page", async () => {
    const { requests } = customerPage();
    renderApp("/dashboard/acme/customers/cus-1", { session });
    const timeline = await screen.findByLabelText("Customer timeline", {}, slow);
    const links = within(timeline).getAllByRole("link");
    expect(links.map((l) => [l.textContent, l.getAttribute("href")])).toEqual([
      ["Canceled Starter", "/dashboard/acme/subscriptions/sub-1"],
      ["Usage: ai.completion", "/dashboard/acme/meters"],
      ["Refund", "/dashboard/acme/orders/ord-1"],
      ["Purchase: Starter", "/dashboard/acme/orders/ord-1"],
      ["Subscribed to Starter", "/dashboard/acme/subscriptions/sub-1"],
    ]);
    // The refund with its tax, and the order it refunds; the cancellation with its reason.
    expect(within(timeline).getByText("€6.00 · ACME-0001")).toBeTruthy();
    expect(within(timeline).getByText("€24.00 · ACME-0001")).toBeTruthy();
    expect(within(timeline).getByText("too expensive")).toBeTruthy();
    for (const path of ["/v1/orders/", "/v1/subscriptions/", "/v1/refunds/", "/v1/events/"])
      expect(
        requests.find((r) => r.path === path && r.query.get("limit") === "25")?.query.get("customer_id"),
        path,
      ).toBe("cus-1");
  });

  it("a customer who bought nothing: no value yet, and the timeline says what to do next", async () => {
    customerPage({
      "/v1/customers/cus-1/summary": {
        ...summary,
        lifetime_value: 0,
        refunded_amount: 0,
        orders: 0,
        first_order_at: null,
        last_order_at: null,
        totals: [],
      },
      "/v1/orders/": page([]),
      "/v1/subscriptions/": page([]),
      "/v1/refunds/": page([]),
      "/v1/events/": page([]),
    });
    renderApp("/dashboard/acme/customers/cus-1", { session });
    const ltv = await screen.findByRole("group", { name: "Lifetime value" }, slow);
    expect(within(ltv).getByText("€0.00")).toBeTruthy();
    expect(within(screen.getByRole("group", { name: "Orders" })).getByText("No purchase yet")).toBeTruthy();
    expect(within(screen.getByRole("group", { name: "First purchase" })).getByText("—")).toBeTruthy();
    expect(await screen.findByText("Nothing yet")).toBeTruthy();
    expect(screen.getByText(/Send the customer a checkout link/)).toBeTruthy();
  });

  it("links each of the customer's meters to its meter page, with its balance and ledger", async () => {
    const { requests } = customerPage({
      "/v1/customer-meters/": page([customerMeter]),
      "/v1/customer-meters/cm-1/ledger": {
        items: [
          ledgerEntry("l-1", "credit", 1000, "Monthly credits"),
          ledgerEntry("l-2", "usage", -1500, "Usage of the current period so far", true),
        ],
        balance: -500,
      },
    });
    const { user } = renderApp("/dashboard/acme/customers/cus-1", { session });
    const item = await screen.findByTestId("customer-meter", {}, cold);
    const link = within(item).getByRole("link", { name: "API calls" });
    expect(link.getAttribute("href")).toBe("/dashboard/acme/meters/meter-1");
    expect(within(item).getByText("Balance -500")).toBeTruthy();
    expect(within(item).getByText("1,500 used, 1,000 credited")).toBeTruthy();
    expect(requests.some((r) => r.path === "/v1/customer-meters/cm-1/ledger")).toBe(false);
    await user.click(within(item).getByRole("button", { name: "Show the ledger" }));
    const ledger = await within(item).findByRole("table", { name: "Ledger" }, slow);
    const rows = within(ledger)
      .getAllByRole("row")
      .map((r) => r.textContent);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("Monthly credits");
    expect(rows[0]).toContain("+1,000");
    expect(rows[1]).toContain("Usage of the current period so far (so far)");
    expect(rows[1]).toContain("-1,500");
    expect(requests.find((r) => r.path === "/v1/customer-meters/")?.query.get("customer_id")).toBe("cus-1");
  });
});
