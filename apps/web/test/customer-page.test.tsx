import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CustomerSummary, UsageEvent } from "../src/lib/v1";
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
});
