import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CustomerMeter, Meter, UsageEvent } from "../src/lib/v1";
import { type RecordedRequest, renderApp, stubServer } from "./app";
import { customer, dashboardAnswers, page, session } from "./commerce-fixtures";
import { slow } from "./render";

/**
 * The usage pages (issue 16): a meter's usage chart and balances, the events explorer, and the
 * meter editor's preview of matching events, against stubbed `/v1` answers.
 */

const meter: Meter = {
  id: "meter-1",
  created_at: "2026-03-01T10:00:00Z",
  modified_at: null,
  name: "API calls",
  unit: "scalar",
  custom_label: null,
  custom_multiplier: null,
  filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
  aggregation: { func: "sum", property: "tokens" },
  metadata: {},
  organization_id: "org-1",
  archived_at: null,
};

const balance: CustomerMeter = {
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

const event: UsageEvent = {
  id: "ev-1",
  timestamp: "2026-03-02T09:30:00Z",
  organization_id: "org-1",
  customer_id: customer.id,
  customer,
  external_customer_id: null,
  external_id: "req-1",
  child_count: 0,
  parent_id: null,
  label: "api_call",
  name: "api_call",
  source: "user",
  metadata: { tokens: 120, model: "small" },
};

const midnight = (y: number, m: number, d: number) => new Date(y, m - 1, d).toISOString();
const gets = (requests: RecordedRequest[], path: string) =>
  requests.filter((r) => r.method === "GET" && r.path === path);

describe("the meter page", () => {
  it("charts the period's usage with its total and lists each customer's balance, linked", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/meter-1": meter,
      "/v1/meters/meter-1/quantities": {
        quantities: [
          { timestamp: "2026-03-01T00:00:00Z", quantity: 1000 },
          { timestamp: "2026-03-02T00:00:00Z", quantity: 234.5 },
        ],
        total: 1234.5,
      },
      "/v1/customer-meters/": page([balance]),
    });
    const { router } = renderApp(
      "/dashboard/acme/meters/meter-1?period=custom&from=2026-03-01&to=2026-03-30",
      {
        session,
      },
    );
    const total = await screen.findByRole("group", { name: "Total usage" }, slow);
    expect(within(total).getByText("1,234.5")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "API calls" })).toBeTruthy();
    expect(screen.getByText("sum(tokens)")).toBeTruthy();
    expect(await screen.findByRole("figure", { name: "API calls usage chart" }, slow)).toBeTruthy();

    const asked = gets(requests, "/v1/meters/meter-1/quantities").at(-1);
    expect(asked?.query.get("interval")).toBe("day");
    expect(asked?.query.get("start_timestamp")).toBe(midnight(2026, 3, 1));
    expect(asked?.query.get("end_timestamp")).toBe(
      new Date(new Date(2026, 2, 31).getTime() - 1).toISOString(),
    );
    expect(asked?.query.get("timezone")).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);

    const balances = await screen.findByRole("table", { name: "Customer balances" });
    const row = within(balances).getByRole("row", { name: /Ada Buyer/ });
    expect(within(row).getByText("1,500")).toBeTruthy();
    expect(within(row).getByText("1,000")).toBeTruthy();
    expect(within(row).getByText("-500")).toBeTruthy();
    expect(within(row).getByRole("link", { name: "Ada Buyer" }).getAttribute("href")).toBe(
      "/dashboard/acme/customers/cus-1",
    );
    const balanceRead = gets(requests, "/v1/customer-meters/").at(-1);
    expect(balanceRead?.query.get("meter_id")).toBe("meter-1");
    expect(balanceRead?.query.get("sorting")).toBe("-consumed_units");

    // A coarser interval goes to the address and to the server.
    await router.navigate({ to: ".", search: (prev: object) => ({ ...prev, interval: "week" }) } as never);
    await waitFor(() =>
      expect(gets(requests, "/v1/meters/meter-1/quantities").at(-1)?.query.get("interval")).toBe("week"),
    );
    expect(screen.getByRole("link", { name: "Matching events" }).getAttribute("href")).toBe(
      "/dashboard/acme/events?meter_id=meter-1",
    );
  });

  it("says what to do when the meter counted nothing and no customer has a balance; a member cannot edit", async () => {
    stubServer({
      ...dashboardAnswers("member"),
      "/v1/meters/meter-1": meter,
      "/v1/meters/meter-1/quantities": { quantities: [], total: 0 },
      "/v1/customer-meters/": page([]),
    });
    renderApp("/dashboard/acme/meters/meter-1?period=7d", { session });
    expect(await screen.findByText(/No usage in this period/, {}, slow)).toBeTruthy();
    expect(await screen.findByText("No customer has used this meter yet")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Edit meter" })).toBeNull();
  });

  it("the meters list links each meter to its page", async () => {
    stubServer(dashboardAnswers("owner"));
    renderApp("/dashboard/acme/meters", { session });
    const link = await screen.findByRole("link", { name: "API calls" }, slow);
    expect(link.getAttribute("href")).toBe("/dashboard/acme/meters/meter-1");
    expect(screen.getByRole("button", { name: "Edit API calls" })).toBeTruthy();
  });
});

describe("the events explorer", () => {
  it("holds its filters in the address and sends them; metadata is compact and expands", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/events/": page([event]),
      "/v1/events/names": page([
        {
          name: "api_call",
          source: "user",
          occurrences: 3,
          first_seen: event.timestamp,
          last_seen: event.timestamp,
        },
      ]),
    });
    const { user, router } = renderApp("/dashboard/acme/events?name=api_call", { session });
    const table = await screen.findByRole("table", { name: "Events" }, slow);
    const row = within(table).getByRole("row", { name: /api_call/ });
    expect(within(row).getByRole("link", { name: "Ada Buyer" }).getAttribute("href")).toBe(
      "/dashboard/acme/customers/cus-1",
    );
    expect(within(row).getByText("tokens=120 · model=small")).toBeTruthy();
    let asked = gets(requests, "/v1/events/").at(-1);
    expect(asked?.query.get("name")).toBe("api_call");
    expect(asked?.query.get("sorting")).toBe("-timestamp");

    await user.click(screen.getByRole("button", { name: "Sort by time" }));
    await waitFor(() => expect(gets(requests, "/v1/events/").at(-1)?.query.get("sorting")).toBe("timestamp"));
    expect(router.state.location.search).toMatchObject({ sorting: "timestamp", name: "api_call" });

    await user.click(within(row).getByRole("button", { name: /Show the metadata of api_call/ }));
    expect(within(row).getByText(/"model": "small"/)).toBeTruthy();

    await user.type(screen.getByLabelText("Customer ID"), "cus-1{Enter}");
    await waitFor(() => expect(router.state.location.search).toMatchObject({ customer_id: "cus-1" }));
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-03-01" } });
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({
        name: "api_call",
        customer_id: "cus-1",
        from: "2026-03-01",
      }),
    );
    await waitFor(() => {
      asked = gets(requests, "/v1/events/").at(-1);
      expect(asked?.query.get("start_timestamp")).toBe(midnight(2026, 3, 1));
    });
    expect(asked?.query.get("customer_id")).toBe("cus-1");
    expect(asked?.query.get("name")).toBe("api_call");
    expect(asked?.query.has("end_timestamp")).toBe(false);
  });

  it("sends the meter from the address and says when nothing matches", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/events/": page([]),
      "/v1/events/names": page([]),
    });
    renderApp("/dashboard/acme/events?meter_id=meter-1&from=yesterday&to=2026-03-30", { session });
    expect(await screen.findByText("No event matches these filters", {}, slow)).toBeTruthy();
    const asked = gets(requests, "/v1/events/").at(-1);
    expect(asked?.query.get("meter_id")).toBe("meter-1");
    expect(asked?.query.get("end_timestamp")).toBe(
      new Date(new Date(2026, 2, 31).getTime() - 1).toISOString(),
    );
    expect(screen.getByRole("link", { name: "Events" }).getAttribute("href")).toBe("/dashboard/acme/events");
  });
});

describe("the meter editor's preview", () => {
  it("asks for the events the filter being edited matches and shows how many", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/events/": { items: [event], pagination: { total_count: 42, max_page: 5 } },
    });
    const { user } = renderApp("/dashboard/acme/meters", { session });
    await user.click(await screen.findByRole("button", { name: "New meter" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New meter" });
    const preview = within(dialog).getByRole("region", { name: "Matching events" });
    expect(await within(preview).findByText(/42 events match/, {}, slow)).toBeTruthy();
    expect(within(preview).getByText("ada@buyer.test")).toBeTruthy();

    await user.click(within(dialog).getByRole("button", { name: "Add a condition" }));
    expect(await within(preview).findByText(/Complete the conditions/, {}, slow)).toBeTruthy();
    const condition = within(dialog).getByRole("group", { name: "Condition 1" });
    // Pasted, not typed key by key: each key re-renders the editor and its preview, which took
    // this test past its time on a loaded two-core machine (17 s, against 5-8 s unloaded).
    await user.click(within(condition).getByLabelText("Property"));
    await user.paste("name");
    await user.click(within(condition).getByRole("textbox", { name: "Value" }));
    await user.paste("api_call");
    const wanted = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] };
    await waitFor(() => {
      const asked = gets(requests, "/v1/events/").at(-1);
      expect(JSON.parse(asked?.query.get("filter") ?? "null")).toEqual(wanted);
      expect(asked?.query.get("limit")).toBe("10");
    }, slow);
  }, 30_000);

  it("an unchanged meter is previewed by its id", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/meters/meter-1": meter,
      "/v1/meters/meter-1/quantities": { quantities: [], total: 0 },
      "/v1/customer-meters/": page([]),
      "/v1/events/": page([event]),
    });
    const { user } = renderApp("/dashboard/acme/meters/meter-1", { session });
    await user.click(await screen.findByRole("button", { name: "Edit meter" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Edit meter" });
    expect(await within(dialog).findByText(/1 event matches/, {}, slow)).toBeTruthy();
    const asked = gets(requests, "/v1/events/").at(-1);
    expect(asked?.query.get("meter_id")).toBe("meter-1");
    expect(asked?.query.has("filter")).toBe(false);
  });
});
