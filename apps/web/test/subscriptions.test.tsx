import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { cancellationBody } from "../src/features/subscriptions/cancel-dialog";
import {
  advanceSummary,
  dunningOf,
  endingNote,
  STATUS_FILTERS,
  statusFilterOf,
  subscriptionHistory,
} from "../src/features/subscriptions/lifecycle";
import type { Order, Subscription } from "../src/lib/v1";
import { answerWith, type RecordedRequest, renderApp, stubServer } from "./app";
import { dashboardAnswers, order, page, price, product, session, subscription } from "./commerce-fixtures";
import { slow } from "./render";

const DAY = 86_400_000;
const usd = (amount: number) => `$${(amount / 100).toFixed(2)}`;

const active: Subscription = {
  ...subscription,
  cancel_at_period_end: false,
  canceled_at: null,
  ends_at: null,
  customer_cancellation_reason: null,
};
const renewal = (over: Partial<Order>): Order => ({
  ...order,
  id: "ord-2",
  billing_reason: "subscription_cycle",
  subscription_id: "sub-1",
  ...over,
});

describe("subscription lifecycle (pure)", () => {
  it("dunning: retries at +2, +5, +7, +7 days after the first failure; the next one after now; the amount due", () => {
    const failedAt = "2026-04-01T10:00:00.000Z";
    const pending = renewal({ status: "pending", paid: false, total_amount: 1500, created_at: failedAt });
    const paid = renewal({ id: "ord-1", status: "paid", created_at: "2026-03-01T10:00:00Z" });
    const d = dunningOf([pending, paid], new Date(Date.parse(failedAt) + 3 * DAY));
    expect(d).not.toBeNull();
    expect(d!.amountDue).toBe(1500);
    expect(d!.since.toISOString()).toBe(failedAt);
    expect(
      d!.attempts.map((a) => [a.afterDays, (a.at.getTime() - Date.parse(failedAt)) / DAY, a.done]),
    ).toEqual([
      [2, 2, true],
      [5, 7, false],
      [7, 14, false],
      [7, 21, false],
    ]);
    expect(d!.nextAttempt?.toISOString()).toBe("2026-04-08T10:00:00.000Z");
    expect(d!.revokedAt.toISOString()).toBe("2026-04-22T10:00:00.000Z");
    // The server's own planned attempt wins (a new card is retried at once).
    const planned = { ...pending, next_payment_attempt_at: "2026-04-04T12:00:00Z" } as Order;
    expect(dunningOf([planned], new Date(failedAt))!.nextAttempt?.toISOString()).toBe(
      "2026-04-04T12:00:00.000Z",
    );
    expect(dunningOf([paid], new Date())).toBeNull();
  });

  it("history: start, payments and renewals, a failed renewal, the cancellation with its reason, the scheduled end", () => {
    const s: Subscription = {
      ...subscription,
      started_at: "2026-03-01T10:00:00Z",
      canceled_at: "2026-04-10T10:00:00Z",
      ends_at: "2026-05-01T10:00:00Z",
      current_period_end: "2026-05-01T10:00:00Z",
      customer_cancellation_comment: "Too pricey for us",
    };
    const orders = [
      renewal({
        id: "o3",
        status: "pending",
        created_at: "2026-04-20T10:00:00Z",
        total_amount: 1900,
        currency: "usd",
      }),
      renewal({ id: "o2", status: "paid", created_at: "2026-04-01T10:00:00Z", total_amount: 1900 }),
      renewal({
        id: "o1",
        billing_reason: "subscription_create",
        created_at: "2026-03-01T10:00:00Z",
        total_amount: 1900,
      }),
    ];
    const events = subscriptionHistory(s, orders, new Date("2026-04-15T00:00:00Z"), usd);
    expect(events.map((e) => e.title)).toEqual([
      "Started",
      "First payment",
      "Renewed",
      "Canceled",
      "Past due",
      "Ends",
    ]);
    expect(events.find((e) => e.title === "Canceled")?.detail).toBe(
      "Reason: Too expensive (“Too pricey for us”)",
    );
    expect(events.find((e) => e.title === "Ends")).toMatchObject({ upcoming: true, at: s.ends_at });
    expect(events.find((e) => e.title === "Past due")?.detail).toContain("$19.00");
    const ended = subscriptionHistory(
      {
        ...s,
        ended_at: "2026-04-10T10:00:00Z",
        canceled_at: "2026-04-10T10:00:00Z",
        cancel_at_period_end: false,
      },
      [],
      new Date(),
      usd,
    );
    expect(ended.map((e) => e.title)).toEqual(["Started", "Revoked", "Ended"]);
  });

  it("ending note, status filters, cancellation bodies and the advance's words", () => {
    expect(endingNote(subscription, () => "1 Apr 2026")).toBe("Ends on 1 Apr 2026");
    expect(endingNote(active, () => "x")).toBeNull();
    expect(statusFilterOf("past_due")).toBe("past_due");
    expect(statusFilterOf("ended")).toBe("canceled");
    expect(statusFilterOf("nope")).toBeNull();
    expect(STATUS_FILTERS.past_due.params).toEqual({ status: "past_due" });
    expect(STATUS_FILTERS.past_due.matches(active)).toBe(false);
    expect(STATUS_FILTERS.canceled.params).toEqual({ active: false });

    expect(cancellationBody({ when: "period_end", reason: "too_expensive", comment: "  pricey " })).toEqual({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "pricey",
    });
    expect(cancellationBody({ when: "now", reason: null, comment: "" })).toEqual({ revoke: true });

    const none = { renewals: 0, ended: 0, charges: 0, paid: 0, failed: 0, revoked: 0, trial_reminders: 0 };
    expect(advanceSummary(none)).toBe("Nothing was due");
    expect(advanceSummary({ ...none, renewals: 3, charges: 3, paid: 2, failed: 1 })).toBe(
      "3 renewals, 2 payments succeeded, 1 payment failed",
    );
    expect(advanceSummary({ ...none, ended: 1, revoked: 2 })).toBe(
      "1 subscription ended, 2 subscriptions revoked",
    );
    expect(advanceSummary({ ...none, renewals: 1, paid: 1, checkouts_expired: 2 })).toBe(
      "1 renewal, 1 payment succeeded, 2 checkouts expired",
    );
  });
});

describe("subscription detail", () => {
  it("cancels at the period's end with a reason; a refusal shows in the dialog", async () => {
    let patches = 0;
    let current: Subscription = active;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/subscriptions/sub-1": () => current,
      "/v1/orders/": page([order]),
      "/v1/subscriptions/sub-1/preview": {
        now: null,
        next_renewal: {
          billing_reason: "subscription_cycle",
          at: "2026-04-01T10:00:00Z",
          subtotal_amount: 1900,
          discount_amount: 0,
          net_amount: 1900,
          tax_amount: 380,
          total_amount: 2280,
          currency: "usd",
          items: [{ label: "Starter", amount: 1900, proration: false }],
        },
      },
      "PATCH /v1/subscriptions/sub-1": () => {
        patches += 1;
        if (patches === 1)
          return answerWith(403, {
            error: "AlreadyCanceledSubscription",
            detail: "This subscription is already canceled or will be at the end of the period.",
          });
        current = { ...subscription, customer_cancellation_reason: "too_expensive" };
        return current;
      },
    });
    const { user } = renderApp("/dashboard/acme/subscriptions/sub-1", { session });
    await screen.findByRole("heading", { name: "Starter for Ada Buyer" }, slow);
    const upcoming = await screen.findByTestId("upcoming-charge");
    await waitFor(() => expect(within(upcoming).getAllByText("$22.80").length).toBeGreaterThan(0));
    // No sandbox banner: the stub answers 404 for the test clock.
    expect(screen.queryByTestId("sandbox-banner")).toBeNull();

    await user.click(screen.getByRole("button", { name: "Cancel subscription" }));
    const dialog = await screen.findByRole("dialog", { name: "Cancel subscription" });
    await user.click(within(dialog).getAllByLabelText("Reason")[0]!);
    await user.click(await screen.findByRole("option", { name: "Too expensive" }));
    await user.type(within(dialog).getByLabelText("Comment"), "Budget cuts");
    await user.click(within(dialog).getByRole("button", { name: "Cancel subscription" }));
    await within(dialog).findByText(
      "This subscription is already canceled or will be at the end of the period.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Cancel subscription" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Cancel subscription" })).toBeNull());
    const patch = requests.filter((r) => r.method === "PATCH").at(-1);
    expect(patch?.body).toEqual({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Budget cuts",
    });
    await screen.findByRole("button", { name: "Uncancel" });
  });

  it("a past-due subscription shows what is due and the next retry; a member sees no actions", async () => {
    const failedAt = new Date(Date.now() - 3 * DAY).toISOString();
    stubServer({
      ...dashboardAnswers("member"),
      "/v1/subscriptions/sub-1": { ...active, status: "past_due" },
      "/v1/orders/": page([
        renewal({
          status: "pending",
          paid: false,
          total_amount: 1900,
          currency: "usd",
          created_at: failedAt,
        }),
      ]),
    });
    renderApp("/dashboard/acme/subscriptions/sub-1", { session });
    const banner = await screen.findByTestId("past-due-banner", {}, slow);
    expect(banner.textContent).toContain("$19.00 unpaid");
    expect(banner.textContent).toMatch(/Next attempt on/);
    expect(within(banner).getAllByRole("listitem")).toHaveLength(4);
    expect(screen.queryByRole("button", { name: "Cancel subscription" })).toBeNull();
    // Without the preview endpoint, the next charge is the subscription's own amount.
    expect((await screen.findByTestId("upcoming-charge")).textContent).toContain("$19.00");
  });

  it("the sandbox banner advances the clock without waiting: its progress until ready, then what ran, and the pages refreshed", async () => {
    const noneRan = { renewals: 0, ended: 0, charges: 0, paid: 0, failed: 0, revoked: 0, trial_reminders: 0 };
    const clock = (now: string, status: "ready" | "advancing", advance: Record<string, unknown> | null) => ({
      organization_id: "org-1",
      now,
      frozen: advance !== null,
      offset_seconds: 0,
      advanced_at: null,
      status,
      advance: advance && {
        id: "adv-1",
        previous: "2026-03-01T10:00:00Z",
        target: "2026-04-01T10:00:00Z",
        progress: 0,
        steps: 0,
        ran: noneRan,
        started_at: "2026-03-01T10:00:00Z",
        finished_at: null,
        error: null,
        ...advance,
      },
    });
    // The server's answers: the clock ready; the advance begun (202); read again while it runs
    // (half way, one renewal paid so far); then ready with what ran.
    let begun = false;
    let readsSince = 0;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/subscriptions/": page([active]),
      "/v1/test-clock": () => {
        if (!begun) return clock("2026-03-01T10:00:00Z", "ready", null);
        readsSince += 1;
        if (readsSince === 1)
          return clock("2026-03-16T10:00:00Z", "advancing", {
            progress: 0.5,
            steps: 1,
            ran: { ...noneRan, renewals: 1, charges: 1, paid: 1 },
          });
        return clock("2026-04-01T10:00:00Z", "ready", {
          progress: 1,
          steps: 3,
          ran: { renewals: 3, ended: 0, charges: 3, paid: 2, failed: 1, revoked: 0, trial_reminders: 0 },
          finished_at: "2026-03-01T10:00:09Z",
        });
      },
      "POST /v1/test-clock/advance": () => {
        begun = true;
        return answerWith(202, clock("2026-03-01T10:00:00Z", "advancing", {}));
      },
    });
    const { user } = renderApp("/dashboard/acme/subscriptions", { session });
    const banner = await screen.findByTestId("sandbox-banner", {}, slow);
    const listCalls = () => requests.filter((r) => r.path === "/v1/subscriptions/").length;
    await waitFor(() => expect(listCalls()).toBeGreaterThan(0));
    const before = listCalls();
    await user.click(within(banner).getByRole("button", { name: "+1 month" }));
    expect(requests.find((r) => r.path === "/v1/test-clock/advance")?.body).toEqual({
      by: "P1M",
      wait: false,
    });

    // At once: advancing, at 0%, the buttons disabled until it is done.
    const progress = await within(banner).findByTestId("advance-progress");
    expect(
      within(progress).getByRole("progressbar", { name: "Advance progress" }).getAttribute("aria-valuenow"),
    ).toBe("0");
    expect(within(banner).getByRole("button", { name: "+1 day" })).toHaveProperty("disabled", true);
    // Half way, as the next read says: the simulated date moves, and what ran so far.
    await waitFor(
      () =>
        expect(
          within(banner).getByRole("progressbar", { name: "Advance progress" }).getAttribute("aria-valuenow"),
        ).toBe("50"),
      { timeout: 5000 },
    );
    expect(within(banner).getByTestId("advance-progress").textContent).toContain(
      "so far: 1 renewal, 1 payment succeeded",
    );
    expect(listCalls()).toBe(before);
    // Ready: what ran, the pages' data read again, the buttons back.
    const result = await within(banner).findByRole("status", {}, { timeout: 5000 });
    expect(result.textContent).toContain("3 renewals, 2 payments succeeded, 1 payment failed");
    expect(within(banner).queryByTestId("advance-progress")).toBeNull();
    await waitFor(() => expect(listCalls()).toBeGreaterThan(before));
    expect(within(banner).getByRole("button", { name: "+1 day" })).toHaveProperty("disabled", false);
  });

  it("changes the plan: the preview of now and the next renewal before confirming; a refusal lands on the product", async () => {
    const growth = {
      ...product,
      id: "prod-2",
      name: "Growth",
      prices: [{ ...price, id: "price-2", product_id: "prod-2", price_amount: 4900 }],
    };
    const previewOrder = (billing_reason: "subscription_update" | "subscription_cycle", total: number) => ({
      billing_reason,
      at: "2026-03-15T10:00:00Z",
      subtotal_amount: total,
      discount_amount: 0,
      net_amount: total,
      tax_amount: 0,
      total_amount: total,
      currency: "usd",
      items: [
        {
          label: "Remaining time on Growth",
          amount: total,
          proration: billing_reason === "subscription_update",
        },
      ],
    });
    let patches = 0;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/subscriptions/sub-1": active,
      "/v1/orders/": page([order]),
      "/v1/products/": page([product, growth]),
      "/v1/subscriptions/sub-1/preview": (req: RecordedRequest) =>
        req.query.get("product_id")
          ? {
              now: previewOrder("subscription_update", 1500),
              next_renewal: previewOrder("subscription_cycle", 4900),
            }
          : { now: null, next_renewal: previewOrder("subscription_cycle", 1900) },
      "PATCH /v1/subscriptions/sub-1": () => {
        patches += 1;
        if (patches === 1)
          return answerWith(422, {
            detail: [{ loc: ["body", "product_id"], msg: "Product is archived.", type: "value_error" }],
          });
        return { ...active, product: growth, product_id: "prod-2" };
      },
    });
    const { user } = renderApp("/dashboard/acme/subscriptions/sub-1", { session });
    await screen.findByRole("heading", { name: "Starter for Ada Buyer" }, slow);
    await user.click(screen.getByRole("button", { name: "Change plan" }));
    const dialog = await screen.findByRole("dialog", { name: "Change plan" });
    await user.click(within(dialog).getAllByLabelText(/^New product/)[0]!);
    // The current product is not offered.
    expect(screen.queryByRole("option", { name: /^Starter/ })).toBeNull();
    await user.click(await screen.findByRole("option", { name: "Growth ($49.00 / month)" }));
    await user.click(within(dialog).getByLabelText("Invoice the difference now"));
    const now = await within(dialog).findByRole("region", { name: "Charged now" });
    expect(now.textContent).toContain("$15.00");
    expect(now.textContent).toContain("(prorated)");
    expect(within(dialog).getByRole("region", { name: "Next renewal" }).textContent).toContain("$49.00");
    const previewed = requests.filter((r) => r.path === "/v1/subscriptions/sub-1/preview").at(-1);
    expect(previewed?.query.get("product_id")).toBe("prod-2");
    expect(previewed?.query.get("proration_behavior")).toBe("invoice");

    await user.click(within(dialog).getByRole("button", { name: "Change plan" }));
    await within(dialog).findByText("Product is archived.");
    await user.click(within(dialog).getByRole("button", { name: "Change plan" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Change plan" })).toBeNull());
    expect(requests.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([
      { product_id: "prod-2", proration_behavior: "invoice" },
      { product_id: "prod-2", proration_behavior: "invoice" },
    ]);
  });
});
