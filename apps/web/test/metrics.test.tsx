import { METRIC_DEFINITIONS, type MetricsResponse } from "@kassa/contracts/v1";
import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cancellationReasons, groupOf } from "../src/features/metrics/analytics-page";
import { labelInterval } from "../src/features/metrics/charts";
import { csvFileName, metricsCsv } from "../src/features/metrics/csv";
import { changeOf, formatChange } from "../src/features/metrics/format";
import { intervalFor, intervalsFor, previousRange, rangeOf } from "../src/features/metrics/period";
import { type RecordedRequest, renderApp, stubServer } from "./app";
import { dashboardAnswers, order, page, product, refund, session, subscription } from "./commerce-fixtures";
import { slow } from "./render";

/** An answer shaped by the contract: every metric, one value per day, the given totals. */
function metricsAnswer(days: string[], totals: Record<string, number>): MetricsResponse {
  const metrics = Object.fromEntries(
    METRIC_DEFINITIONS.map((d) => [d.slug, { slug: d.slug, display_name: d.display_name, type: d.type }]),
  );
  const allTotals = Object.fromEntries(METRIC_DEFINITIONS.map((d) => [d.slug, totals[d.slug] ?? 0]));
  const periods = days.map((day, i) => ({
    timestamp: `${day}T00:00:00+00:00`,
    ...Object.fromEntries(
      METRIC_DEFINITIONS.map((d) => [d.slug, i === days.length - 1 ? (totals[d.slug] ?? 0) : 0]),
    ),
  }));
  return { periods, totals: allTotals, metrics } as MetricsResponse;
}

const current = metricsAnswer(["2026-03-01", "2026-03-02"], {
  revenue: 123450,
  monthly_recurring_revenue: 5000,
  active_subscriptions: 12,
  orders: 30,
  checkouts_conversion: 0.25,
  canceled_subscriptions_too_expensive: 3,
  canceled_subscriptions_unused: 1,
});
const previous = metricsAnswer(["2026-01-30"], {
  revenue: 100000,
  monthly_recurring_revenue: 5000,
  active_subscriptions: 16,
  orders: 0,
  checkouts_conversion: 0.2,
});

const billingOrg = { id: "org-1", name: "Acme", slug: "acme", default_presentment_currency: "eur" };

/** The home page's reads, the metrics answered by which range is asked. */
function homeAnswers(
  role: "owner" | "admin" | "member",
  extra: Record<string, unknown | ((r: RecordedRequest) => unknown)> = {},
) {
  return {
    ...dashboardAnswers(role),
    "/v1/organizations/org-1": billingOrg,
    "/v1/metrics/": (r: RecordedRequest) => (r.query.get("start_date") === "2026-03-01" ? current : previous),
    "/api/checkout/config": { processor: "sandbox", stripe_publishable_key: null },
    "/v1/checkout-links/": page([]),
    "/v1/webhooks/endpoints/": page([]),
    "/v1/orders/": page([order]),
    "/v1/subscriptions/": (r: RecordedRequest) =>
      r.query.has("canceled_at_after") ? page([subscription]) : page([]),
    "/v1/refunds/": page([refund]),
    ...extra,
  };
}

const HOME = "/dashboard/acme?period=custom&from=2026-03-01&to=2026-03-30";
const card = (name: string) => screen.getByRole("group", { name });

afterEach(() => vi.restoreAllMocks());

describe("the home page", () => {
  it("shows each figure of the period in the organization's currency and its change against the previous period", async () => {
    const { requests } = stubServer(homeAnswers("owner"));
    renderApp(HOME, { session });
    await waitFor(() => expect(within(card("Revenue")).getByText("€1,234.50")).toBeTruthy(), slow);
    expect(within(card("Revenue")).getByLabelText("Up 23.5% against the previous period")).toBeTruthy();
    expect(within(card("MRR")).getByText("€50.00")).toBeTruthy();
    expect(within(card("MRR")).getByLabelText("No change against the previous period")).toBeTruthy();
    expect(within(card("Active subscriptions")).getByText("12")).toBeTruthy();
    expect(
      within(card("Active subscriptions")).getByLabelText("Down 25% against the previous period"),
    ).toBeTruthy();
    expect(within(card("Orders")).getByText("30")).toBeTruthy();
    expect(within(card("Orders")).getByLabelText("Up: nothing in the previous period")).toBeTruthy();
    expect(within(card("Checkout conversion")).getByText("25%")).toBeTruthy();
    expect(within(card("Checkout conversion")).getByText("+25%")).toBeTruthy();

    // Two calls: this period, and the 30 days before it; by day, in the viewer's time zone.
    const calls = requests.filter((r) => r.path === "/v1/metrics/");
    const asked = calls.map((r) => [r.query.get("start_date"), r.query.get("end_date")]);
    expect(asked).toContainEqual(["2026-03-01", "2026-03-30"]);
    expect(asked).toContainEqual(["2026-01-30", "2026-02-28"]);
    for (const call of calls) {
      expect(call.query.get("interval")).toBe("day");
      expect(call.query.get("timezone")).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
      expect(call.query.get("organization_id")).toBe("org-1");
      expect(call.query.getAll("metrics")).toEqual([
        "revenue",
        "monthly_recurring_revenue",
        "active_subscriptions",
        "orders",
        "checkouts_conversion",
      ]);
    }
  });

  it("the period picker writes the address; twelve months go by month", async () => {
    const { requests } = stubServer(homeAnswers("owner"));
    const { user, router } = renderApp(HOME, { session });
    await screen.findByRole("group", { name: "Revenue" }, slow);
    await user.click(screen.getByRole("combobox", { name: "Period" }));
    await user.click(await screen.findByRole("option", { name: "Last 12 months" }));
    await waitFor(() => expect(router.state.location.search).toEqual({ period: "12m" }));
    await waitFor(() =>
      expect(requests.some((r) => r.path === "/v1/metrics/" && r.query.get("interval") === "month")).toBe(
        true,
      ),
    );
  });

  it("on the sandbox, a preset ends on the test clock's day, not the browser's", async () => {
    const { requests } = stubServer(
      homeAnswers("owner", {
        "/v1/test-clock": {
          organization_id: "org-1",
          now: "2031-06-15T12:00:00Z",
          frozen: true,
          offset_seconds: 1e8,
          advanced_at: "2026-03-02T10:00:00Z",
          status: "ready",
          advance: null,
        },
      }),
    );
    renderApp("/dashboard/acme?period=30d", { session });
    await waitFor(() =>
      expect(
        requests.some(
          (r) =>
            r.path === "/v1/metrics/" &&
            r.query.get("start_date") === "2031-05-17" &&
            r.query.get("end_date") === "2031-06-15",
        ),
      ).toBe(true),
    );
  });

  it("lists the latest orders, cancellations and refunds newest first, each linking to its page", async () => {
    stubServer(homeAnswers("owner"));
    renderApp(HOME, { session });
    const timeline = await screen.findByLabelText("Latest activity", {}, slow);
    const links = within(timeline).getAllByRole("link");
    expect(links.map((l) => [l.textContent, l.getAttribute("href")])).toEqual([
      ["Ada Buyer canceled Starter (too expensive)", "/dashboard/acme/subscriptions/sub-1"],
      ["Refund of €6.00", "/dashboard/acme/orders/ord-1"],
      ["Ada Buyer bought Starter: €24.00", "/dashboard/acme/orders/ord-1"],
    ]);
  });

  it("a new organization's checklist ticks what exists and links to the rest; it is gone once all is done", async () => {
    stubServer(homeAnswers("owner"));
    const first = renderApp(HOME, { session });
    const checklist = await screen.findByRole("region", { name: "Get started" }, slow);
    expect(within(checklist).getByText("1 of 4 done")).toBeTruthy();
    const step = (key: string) => checklist.querySelector(`[data-step="${key}"]`)!;
    expect(step("product").getAttribute("data-done")).toBe("true");
    expect(step("product").getAttribute("aria-label")).toBe("Create a product: done");
    expect(step("checkout-link").getAttribute("aria-label")).toBe("Share a checkout link: to do");
    expect(within(checklist).getByRole("link", { name: "Create a checkout link" }).getAttribute("href")).toBe(
      "/dashboard/acme/checkout-links",
    );
    expect(within(checklist).getByRole("link", { name: "Add an endpoint" }).getAttribute("href")).toBe(
      "/dashboard/acme/settings/webhooks",
    );
    expect(step("stripe").getAttribute("data-done")).toBe("false");
    expect(within(checklist).getByText(/Payments: going live with Stripe/)).toBeTruthy();
    first.unmount();

    stubServer(
      homeAnswers("owner", {
        "/v1/checkout-links/": page([{ id: "link-1" }]),
        "/v1/webhooks/endpoints/": page([{ id: "wh-1" }]),
        "/api/checkout/config": { processor: "stripe", stripe_publishable_key: "pk_test_1" },
      }),
    );
    renderApp(HOME, { session });
    await screen.findByLabelText("Latest activity", {}, slow);
    await screen.findByText("€1,234.50");
    expect(screen.queryByRole("region", { name: "Get started" })).toBeNull();
  });

  it("a member sees the figures and the activity, and no checklist; members and teams are a line", async () => {
    stubServer(homeAnswers("member"));
    renderApp(HOME, { session });
    await waitFor(() => expect(within(card("Revenue")).getByText("€1,234.50")).toBeTruthy(), slow);
    await screen.findByLabelText("Latest activity");
    expect(screen.queryByRole("region", { name: "Get started" })).toBeNull();
    expect(screen.getByRole("link", { name: "1 member" }).getAttribute("href")).toBe(
      "/dashboard/acme/settings/members",
    );
    expect(screen.getByRole("link", { name: "1 team" })).toBeTruthy();
  });

  it("with no sales yet, it says how sales come", async () => {
    const empty = metricsAnswer(["2026-03-01"], {});
    stubServer(
      homeAnswers("owner", {
        "/v1/metrics/": empty,
        "/v1/orders/": page([]),
        "/v1/subscriptions/": page([]),
        "/v1/refunds/": page([]),
        "/v1/products/": page([]),
      }),
    );
    renderApp(HOME, { session });
    await screen.findByText(/No sales yet/, {}, slow);
    expect(screen.getByText(/No sales in this period/)).toBeTruthy();
    expect(screen.getAllByRole("link", { name: /create a product/i }).length).toBeGreaterThan(0);
    expect(await screen.findByRole("region", { name: "Get started" })).toBeTruthy();
    expect(screen.getByText("0 of 4 done")).toBeTruthy();
  });
});

describe("the home page's load, a task at a time", () => {
  /**
   * happy-dom's ResizeObserver never reports: this one reports `width` for every element
   * observed, all observers in one task, as a browser does in a rendering step.
   */
  function reportWidth(width: number) {
    let pending: (() => void)[] = [];
    class Reporting {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(target: Element) {
        if (pending.length === 0)
          setTimeout(() => {
            const now = pending;
            pending = [];
            for (const report of now) report();
          });
        pending.push(() =>
          this.callback(
            [{ target, contentRect: { width, height: 220 } } as unknown as ResizeObserverEntry],
            this as unknown as ResizeObserver,
          ),
        );
      }
      unobserve() {}
      disconnect() {}
    }
    vi.stubGlobal("ResizeObserver", Reporting);
  }
  afterEach(() => vi.unstubAllGlobals());

  it("shows the cards first, then draws the revenue chart, then the MRR chart, each in a later task", async () => {
    reportWidth(600);
    stubServer(homeAnswers("owner"));
    // What the page shows after each change of the document, in order.
    const seen: string[] = [];
    const look = () => {
      const cards = document.querySelector('[data-metric="revenue"] [data-testid="metric-value"]') !== null;
      const revenue = document.querySelector('figure[aria-label="Revenue chart"] svg') !== null;
      const mrr = document.querySelector('figure[aria-label="MRR chart"] svg') !== null;
      const state = `cards ${cards}, revenue ${revenue}, mrr ${mrr}`;
      if (seen.at(-1) !== state) seen.push(state);
    };
    const watcher = new MutationObserver(look);
    watcher.observe(document.body, { childList: true, subtree: true });
    try {
      renderApp(HOME, { session });
      await waitFor(() => expect(within(card("Revenue")).getByText("€1,234.50")).toBeTruthy(), slow);
      // Both drawn, with the two days' labels on the revenue chart's axis.
      await waitFor(() => {
        expect(document.querySelector('figure[aria-label="MRR chart"] svg')).toBeTruthy();
        const revenue = screen.getByRole("figure", { name: "Revenue chart" });
        expect(revenue.querySelectorAll(".recharts-xAxis .recharts-cartesian-axis-tick").length).toBe(2);
      }, slow);
    } finally {
      watcher.disconnect();
    }
    expect(seen).toContain("cards true, revenue false, mrr false");
    expect(seen).toContain("cards true, revenue true, mrr false");
    expect(seen.indexOf("cards true, revenue true, mrr false")).toBeGreaterThan(
      seen.indexOf("cards true, revenue false, mrr false"),
    );
    expect(seen.at(-1)).toBe("cards true, revenue true, mrr true");
  });

  it("keeps the period's options out of the page until the picker opens", async () => {
    stubServer(homeAnswers("owner"));
    const { user } = renderApp(HOME, { session });
    await screen.findByRole("group", { name: "Revenue" }, slow);
    expect(document.querySelector('[role="listbox"]')).toBeNull();
    await user.click(screen.getByRole("combobox", { name: "Period" }));
    expect(await screen.findByRole("option", { name: "Last 12 months" })).toBeTruthy();
    // The navigation beside the page is still there and still links (a plain scrolling box now).
    const nav = screen.getByRole("navigation", { name: "Organization" });
    expect(within(nav).getByRole("link", { name: "Home" }).getAttribute("href")).toBe("/dashboard/acme");
  });

  it("labels as many periods as fit the chart's width", () => {
    // 600 px wide: 600 - 64 (axis) - 20 = 516 px of plot. A year by day, labels like "Mar 12"
    // (6 characters: 6 * 7 + 16 = 58 px each): 516 / 58 = 8 labels fit, so one label every
    // ceil(365 / 8) = 46 periods, an interval of 45 skipped between labels.
    const year = Array.from({ length: 365 }, (_, i) => ({ period: i < 9 ? `Mar ${i + 1}` : "Mar 12" }));
    expect(labelInterval(year, 600)).toBe(45);
    // Thirty days at 1,200 px: 1,116 / 58 = 19 fit, one every ceil(30 / 19) = 2: interval 1.
    expect(labelInterval(year.slice(0, 30), 1200)).toBe(1);
    // Two days fit anywhere: every label shown.
    expect(labelInterval(year.slice(0, 2), 600)).toBe(0);
  });
});

describe("the analytics page", () => {
  it("draws a card per metric with its total, the cancellation reasons, and writes interval and product to the address", async () => {
    const { requests } = stubServer({
      ...homeAnswers("owner"),
      "/v1/products/": page([product]),
      "/v1/metrics/": current,
    });
    const { user, router } = renderApp(
      "/dashboard/acme/analytics?period=custom&from=2026-03-01&to=2026-03-30",
      { session },
    );
    await screen.findByRole("heading", { level: 1, name: "Analytics" }, slow);
    await waitFor(() => expect(within(card("Revenue")).getByText("€1,234.50")).toBeTruthy());
    expect(within(card("Checkouts Conversion Rate")).getByText("25%")).toBeTruthy();
    for (const section of ["Revenue", "Subscriptions", "Checkouts", "Cancellations"])
      expect(screen.getByRole("region", { name: section })).toBeTruthy();
    expect(screen.getByRole("group", { name: "Cancellation reasons" })).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Canceled Subscriptions - Too Expensive" })).toBeNull();

    // Thirty days allow hour? No: days, weeks and months only.
    await user.click(screen.getByRole("combobox", { name: "Interval" }));
    const options = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(options).toEqual(["Day", "Week"]);
    await user.click(screen.getByRole("option", { name: "Week" }));
    await waitFor(() => expect(router.state.location.search).toMatchObject({ interval: "week" }));
    await user.click(screen.getByRole("combobox", { name: "Product" }));
    await user.click(await screen.findByRole("option", { name: "Starter" }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        period: "custom",
        from: "2026-03-01",
        to: "2026-03-30",
        interval: "week",
        product_id: "prod-1",
      }),
    );
    await waitFor(() => {
      const last = requests.filter((r) => r.path === "/v1/metrics/").at(-1);
      expect(last?.query.get("interval")).toBe("week");
      expect(last?.query.getAll("product_id")).toEqual(["prod-1"]);
      expect(last?.query.getAll("metrics")).toEqual([]);
    });
    // Thirty-odd charts drawn in happy-dom take their time on a busy machine.
  }, 60_000);

  it("downloads a metric's series and all metrics as CSV named by the range", async () => {
    stubServer({ ...homeAnswers("owner"), "/v1/metrics/": current });
    const blobs: Blob[] = [];
    vi.spyOn(URL, "createObjectURL").mockImplementation((b) => {
      blobs.push(b as Blob);
      return `blob:${blobs.length}`;
    });
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const { user } = renderApp("/dashboard/acme/analytics?period=custom&from=2026-03-01&to=2026-03-02", {
      session,
    });
    await user.click(await screen.findByRole("button", { name: "Download Revenue as CSV" }, slow));
    expect(names).toEqual(["kassa-revenue-2026-03-01_2026-03-02.csv"]);
    expect(await blobs[0]!.text()).toBe(
      "timestamp,revenue\r\n2026-03-01T00:00:00+00:00,0\r\n2026-03-02T00:00:00+00:00,123450\r\n",
    );
    await user.click(screen.getByRole("button", { name: "Download all (CSV)" }));
    expect(names[1]).toBe("kassa-metrics-2026-03-01_2026-03-02.csv");
    const all = (await blobs[1]!.text()).split("\r\n");
    expect(all[0]).toBe(`timestamp,${METRIC_DEFINITIONS.map((d) => d.slug).join(",")}`);
    expect(all).toHaveLength(4);
  });
});

describe("the metrics pages' rules", () => {
  const today = new Date(2026, 2, 15, 12);
  it("periods end today in the viewer's calendar and compare with as long a period before", () => {
    expect(rangeOf({ period: "7d" }, today).range).toEqual({ start: "2026-03-09", end: "2026-03-15" });
    expect(rangeOf({}, today)).toEqual({ key: "30d", range: { start: "2026-02-14", end: "2026-03-15" } });
    expect(rangeOf({ period: "month" }, today).range).toEqual({ start: "2026-03-01", end: "2026-03-15" });
    const year = rangeOf({ period: "12m" }, today);
    expect(year.range).toEqual({ start: "2025-04-01", end: "2026-03-15" });
    expect(previousRange("12m", year.range)).toEqual({ start: "2024-04-01", end: "2025-03-31" });
    expect(previousRange("7d", { start: "2026-03-09", end: "2026-03-15" })).toEqual({
      start: "2026-03-02",
      end: "2026-03-08",
    });
    // A custom range given backwards is put in order.
    expect(rangeOf({ period: "custom", from: "2026-03-10", to: "2026-03-01" }, today).range).toEqual({
      start: "2026-03-01",
      end: "2026-03-10",
    });
  });

  it("the interval follows the range, within Polar's limits", () => {
    expect(intervalFor({ start: "2026-01-01", end: "2026-03-31" })).toBe("day");
    expect(intervalFor({ start: "2025-04-01", end: "2026-03-15" })).toBe("month");
    expect(intervalsFor({ start: "2026-03-09", end: "2026-03-15" })).toEqual(["hour", "day"]);
    expect(intervalsFor({ start: "2020-01-01", end: "2026-01-01" })).toEqual(["year"]);
    expect(intervalFor({ start: "2026-03-09", end: "2026-03-15" }, "month")).toBe("day");
  });

  it("changes, groups, reasons and CSV cells", () => {
    expect(formatChange(changeOf(150, 100))).toBe("+50%");
    expect(formatChange(changeOf(5, 0))).toBe("New");
    expect(changeOf(0, 0)).toEqual({ direction: "flat", ratio: 0 });
    expect(groupOf("monthly_recurring_revenue")).toBe("subscriptions");
    expect(groupOf("churn_rate")).toBe("cancellations");
    expect(groupOf("succeeded_checkouts")).toBe("checkouts");
    expect(groupOf("net_average_order_value")).toBe("revenue");
    expect(cancellationReasons(current)).toEqual([
      { name: "Too expensive", value: 3 },
      { name: "Unused", value: 1 },
    ]);
    expect(csvFileName("net_revenue", { start: "2026-03-01", end: "2026-03-31" })).toBe(
      "kassa-net-revenue-2026-03-01_2026-03-31.csv",
    );
    // The wire type says every key of a period is a number but its timestamp; built as unknown for that.
    const odd = {
      periods: [{ timestamp: "a,b", x: 1 }],
      totals: {},
      metrics: {},
    } as unknown as MetricsResponse;
    expect(metricsCsv(odd, ["x"])).toBe('timestamp,x\r\n"a,b",1\r\n');
  });
});
