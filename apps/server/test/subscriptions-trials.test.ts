// Runs on both databases: a trial's end is a renewal claimed under row locks, and its reminder and period are computed in SQL.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createShop, type Shop, sdk } from "./support/v1.js";

/**
 * Free trials, as Polar runs them, on the sandbox with the test clock: a product's trial (or a
 * checkout's own), a checkout that saves the card and charges nothing, the trialing
 * subscription and its $0 trial order, the reminder mail 3 days before the end, the first paid
 * period charged at the end (or dunning when the card fails), and `PATCH {trial_end}` to end a
 * trial now or to set / extend one. Each scenario runs in its own organization (its own clock);
 * every webhook is checked by the SDK's `validateEvent`, and products and checkouts are read
 * back through the SDK, whose strict parsing proves their shapes.
 */

const GOOD = "4242424242424242";
/** Saves fine, every charge refused (Stripe's 4000 0000 0000 0341). */
const FAILS = "4000000000000341";
const FR = { country: "FR" } as const;
const DAY = 86_400_000;
const YEAR = new Date().getUTCFullYear() + 1;
const at = (month: number, day: number, hour = 10) => new Date(Date.UTC(YEAR, month - 1, day, hour));

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ env: { JOB_POLL_INTERVAL_MS: "100" } }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function shop(name: string, start?: Date): Promise<Shop> {
  const s = await createShop(server, receiver.url, name, {
    scopes: ["products:write", "discounts:write", "checkouts:write", "subscriptions:write", "orders:read"],
    events: [
      "subscription.created",
      "subscription.updated",
      "subscription.active",
      "subscription.past_due",
      "order.created",
      "order.updated",
      "order.paid",
    ],
  });
  if (start) await advance(s, { to: start.toISOString() });
  return s;
}

async function product(s: Shop, body: Record<string, unknown>) {
  const res = await call(server, s.token, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 2500 }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function cardToken(number: string): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: number,
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function openCheckout(s: Shop, productId: string, extra: Record<string, unknown> = {}) {
  const email = `buyer-${Math.random().toString(36).slice(2)}@example.com`;
  const c = await call(server, s.token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
    ...extra,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return { checkout: c.body, email };
}

/** Buys through a checkout with the card; answers the subscription's id, the checkout and the e-mail. */
async function subscribe(
  s: Shop,
  productId: string,
  opts: { card?: string; extra?: Record<string, unknown> } = {},
) {
  const { checkout, email } = await openCheckout(s, productId, opts.extra);
  const done = await call(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${checkout.client_secret}/confirm`,
    {
      confirmation_token_id: await cardToken(opts.card ?? GOOD),
      customer_billing_address: FR,
    },
  );
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const read = await call(server, s.token, "GET", `/v1/checkouts/${checkout.id}`);
  expect(read.body.status).toBe("succeeded");
  return { subscriptionId: read.body.subscription_id as string, checkoutId: checkout.id as string, email };
}

const advance = async (s: Pick<Shop, "token">, body: Record<string, unknown>) => {
  const res = await call(server, s.token, "POST", "/v1/test-clock/advance", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const subscription = async (s: Shop, id: string) => {
  const res = await call(server, s.token, "GET", `/v1/subscriptions/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

const patch = (s: Shop, id: string, body: Record<string, unknown>) =>
  call(server, s.token, "PATCH", `/v1/subscriptions/${id}`, body);

const row = async (id: string) =>
  (
    await server.sql<{
      anchor_day: number;
      payment_method_id: string | null;
      trial_reminded_at: Date | null;
    }>("select anchor_day, payment_method_id, trial_reminded_at from kassa_subscription where id = $1", id)
  )[0]!;

const ordersOf = (subscriptionId: string) =>
  server.sql<{
    id: string;
    billing_reason: string;
    status: string;
    subtotal_amount: number;
    discount_amount: number;
    tax_amount: number;
    total_amount: number;
    payment_attempts: number;
    discount_id: string | null;
    created_at: Date;
  }>(
    `select id, billing_reason, status, subtotal_amount, discount_amount, tax_amount, total_amount,
       payment_attempts, discount_id, created_at
     from kassa_order where subscription_id = $1 order by created_at, invoice_number`,
    subscriptionId,
  );

const chargesOf = (organizationId: string) =>
  server.sql<{ amount: number; status: string }>(
    "select amount, status from kassa_sandbox_charge where organization_id = $1 order by created_at",
    organizationId,
  );

/** Waits for the shop's webhooks of these types and checks each with the SDK; answers them in order. */
async function hooks(s: Shop, count: number, types?: string[]) {
  const filter = (h: { path: string; body: string }) =>
    h.path === s.path && (!types || types.includes(JSON.parse(h.body).type));
  const got = await receiver.waitFor(count, 20_000, filter);
  for (const h of got) expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
  return got.map((h) => JSON.parse(h.body) as Json);
}

describe("a trial from the checkout", () => {
  it("14 days free, then the first period charged at the trial's end, anchored on that day, with the discount", async () => {
    const start = at(1, 20);
    const s = await shop("TrialPaid", start);
    const productId = await product(s, { trial_interval: "day", trial_interval_count: 14 });
    const polar = sdk(server, s.token);
    const p = await polar.products.get({ id: productId });
    expect([p.trialInterval, p.trialIntervalCount]).toEqual(["day", 14]);

    const discount = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "First month",
      type: "percentage",
      basis_points: 2000,
      duration: "once",
    });
    expect(discount.status, JSON.stringify(discount.body)).toBe(201);
    const { checkout } = await openCheckout(s, productId, { discount_id: discount.body.id });
    const viaSdk = await polar.checkouts.get({ id: checkout.id });
    expect(viaSdk.trialInterval).toBeNull();
    expect([viaSdk.activeTrialInterval, viaSdk.activeTrialIntervalCount]).toEqual(["day", 14]);
    expect(viaSdk.allowTrial).toBe(true);
    expect(viaSdk.trialEnd?.toISOString()).toBe(new Date(start.getTime() + 14 * DAY).toISOString());
    // Nothing is paid now; a card is saved for after the trial. The amounts are the first period's.
    expect(viaSdk.isPaymentRequired).toBe(false);
    expect(viaSdk.isPaymentSetupRequired).toBe(true);
    expect(viaSdk.isPaymentFormRequired).toBe(true);
    expect([viaSdk.amount, viaSdk.discountAmount, viaSdk.netAmount]).toEqual([2500, 500, 2000]);
    expect(viaSdk.product?.trialInterval).toBe("day");

    const done = await call(
      server,
      undefined,
      "POST",
      `/v1/checkouts/client/${checkout.client_secret}/confirm`,
      {
        confirmation_token_id: await cardToken(GOOD),
        customer_billing_address: FR,
      },
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const subscriptionId = (await polar.checkouts.get({ id: checkout.id })).subscriptionId!;
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);

    // Worked example: bought 20 January at 10:00, trial of 14 days: ends 3 February at 10:00.
    const trialEnd = at(2, 3).toISOString();
    const sub = await subscription(s, subscriptionId);
    expect(sub).toMatchObject({
      status: "trialing",
      trial_start: start.toISOString(),
      trial_end: trialEnd,
      current_period_start: start.toISOString(),
      current_period_end: trialEnd,
      amount: 2000,
    });
    expect(sub.discount?.id).toBe(discount.body.id);
    expect((await row(subscriptionId)).payment_method_id).not.toBeNull();
    const viaSdkSub = await polar.subscriptions.get({ id: subscriptionId });
    expect(viaSdkSub.trialEnd?.toISOString()).toBe(trialEnd);

    // Polar's trial order: $0, paid, no discount, one line naming the trial.
    const [trialOrder] = await ordersOf(subscriptionId);
    expect(trialOrder).toMatchObject({
      billing_reason: "subscription_create",
      status: "paid",
      subtotal_amount: 0,
      discount_amount: 0,
      total_amount: 0,
      discount_id: null,
    });
    const order = await polar.orders.get({ id: trialOrder!.id });
    expect(order.items.map((i) => [i.label, i.amount, i.productPriceId])).toEqual([
      [`Trial period for Pro (Jan 20, ${YEAR} - Feb 3, ${YEAR})`, 0, null],
    ]);
    expect(order.paid).toBe(true);
    expect(order.product?.trialInterval).toBe("day");

    // The trial's end: the first period (3 February to 3 March) is charged, 20% off once.
    const ended = await advance(s, { to: new Date(at(2, 3).getTime() + 60_000).toISOString() });
    expect(ended.ran).toMatchObject({ renewals: 1, charges: 1, paid: 1, failed: 0, trial_reminders: 1 });
    const active = await subscription(s, subscriptionId);
    expect(active).toMatchObject({
      status: "active",
      trial_end: trialEnd,
      current_period_start: trialEnd,
      current_period_end: at(3, 3).toISOString(),
    });
    expect((await row(subscriptionId)).anchor_day).toBe(3);
    // The next renewals keep the 3rd (not the 20th, the day it was bought), at the full price.
    await advance(s, { to: at(4, 4).toISOString() });
    const orders = await ordersOf(subscriptionId);
    expect(
      orders.map((o) => [
        o.billing_reason,
        o.status,
        o.subtotal_amount,
        o.discount_amount,
        o.total_amount,
        new Date(o.created_at).toISOString(),
      ]),
    ).toEqual([
      ["subscription_create", "paid", 0, 0, 0, start.toISOString()],
      ["subscription_cycle", "paid", 2500, 500, 2000, trialEnd],
      ["subscription_cycle", "paid", 2500, 0, 2500, at(3, 3).toISOString()],
      ["subscription_cycle", "paid", 2500, 0, 2500, at(4, 3).toISOString()],
    ]);
    expect((await chargesOf(s.merchant.organizationId)).map((c) => [c.amount, c.status])).toEqual([
      [2000, "succeeded"],
      [2500, "succeeded"],
      [2500, "succeeded"],
    ]);

    // Created trialing (which counts as active): one `subscription.active`, none when the trial ends.
    const all = await hooks(s, 10, [
      "subscription.created",
      "subscription.active",
      "order.created",
      "order.paid",
    ]);
    expect(
      all
        .slice(0, 4)
        .map((e) => e.type)
        .sort(),
    ).toEqual(["order.created", "order.paid", "subscription.active", "subscription.created"]);
    const created = all.find((e) => e.type === "subscription.created")!;
    expect(created.data).toMatchObject({ status: "trialing", trial_end: trialEnd });
    expect(all.filter((e) => e.type === "subscription.active")).toHaveLength(1);
    expect(all.filter((e) => e.type === "order.paid").map((e) => e.data.total_amount)).toEqual([
      0, 2000, 2500, 2500,
    ]);
    // Polar's extra `subscription.updated` on creation (trialing), then one per renewal.
    const updated = await hooks(s, 4, ["subscription.updated"]);
    expect(updated.map((e) => e.data.status)).toEqual(["trialing", "active", "active", "active"]);
  }, 120_000);

  it("a card that saves but never pays: the trial's end puts it past due, and dunning retries", async () => {
    const s = await shop("TrialDunning", at(5, 1));
    const productId = await product(s, { trial_interval: "week", trial_interval_count: 1 });
    const { subscriptionId } = await subscribe(s, productId, { card: FAILS });
    expect((await subscription(s, subscriptionId)).status).toBe("trialing");
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);

    const ended = await advance(s, { to: at(5, 8, 11).toISOString() });
    expect(ended.ran).toMatchObject({ renewals: 1, charges: 1, failed: 1, paid: 0 });
    expect((await subscription(s, subscriptionId)).status).toBe("past_due");
    expect((await ordersOf(subscriptionId)).at(-1)).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "pending",
      total_amount: 2500,
      payment_attempts: 1,
    });
    // Retried 2 days later, and failing again.
    expect((await advance(s, { by: "P2D" })).ran).toMatchObject({ charges: 1, failed: 1 });
    expect((await ordersOf(subscriptionId)).at(-1)).toMatchObject({ status: "pending", payment_attempts: 2 });
    const types = (await hooks(s, 2, ["subscription.active", "subscription.past_due"])).map((e) => e.type);
    expect(types).toEqual(["subscription.active", "subscription.past_due"]);
  }, 60_000);

  it("pay what you want: the amount chosen at the checkout is charged when the trial ends", async () => {
    const s = await shop("TrialPwyw", at(3, 1));
    const productId = await product(s, {
      prices: [{ amount_type: "custom", minimum_amount: 500, preset_amount: 1000 }],
      trial_interval: "week",
      trial_interval_count: 2,
    });
    const { subscriptionId } = await subscribe(s, productId, { extra: { amount: 1700 } });
    expect((await ordersOf(subscriptionId)).map((o) => o.total_amount)).toEqual([0]);
    expect((await advance(s, { to: at(3, 15, 11).toISOString() })).ran).toMatchObject({
      renewals: 1,
      paid: 1,
    });
    expect((await ordersOf(subscriptionId)).map((o) => [o.billing_reason, o.total_amount])).toEqual([
      ["subscription_create", 0],
      ["subscription_cycle", 1700],
    ]);
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([1700]);
  }, 60_000);

  it("the checkout's own trial overrides the product's; allow_trial false turns it off", async () => {
    const s = await shop("TrialOverride", at(6, 1));
    const plain = await product(s, {});
    const { checkout } = await openCheckout(s, plain, { trial_interval: "month", trial_interval_count: 1 });
    const polar = sdk(server, s.token);
    const own = await polar.checkouts.get({ id: checkout.id });
    expect([own.trialInterval, own.trialIntervalCount]).toEqual(["month", 1]);
    expect([own.activeTrialInterval, own.activeTrialIntervalCount]).toEqual(["month", 1]);
    expect(own.trialEnd?.toISOString()).toBe(at(7, 1).toISOString());

    const withTrial = await product(s, { name: "Team", trial_interval: "day", trial_interval_count: 30 });
    const off = await openCheckout(s, withTrial, { allow_trial: false });
    const offSdk = await polar.checkouts.get({ id: off.checkout.id });
    expect([offSdk.allowTrial, offSdk.activeTrialInterval, offSdk.trialEnd]).toEqual([false, null, null]);
    expect(offSdk.isPaymentRequired).toBe(true);
    // The merchant turns it back on; the buyer may only turn it off.
    const on = await call(server, s.token, "PATCH", `/v1/checkouts/${off.checkout.id}`, {
      allow_trial: true,
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.trial_end).toBe(new Date(at(6, 1).getTime() + 30 * DAY).toISOString());
    const buyer = await call(
      server,
      undefined,
      "PATCH",
      `/v1/checkouts/client/${off.checkout.client_secret}`,
      {
        allow_trial: false,
      },
    );
    expect(buyer.status, JSON.stringify(buyer.body)).toBe(200);
    expect([buyer.body.trial_end, buyer.body.is_payment_required]).toEqual([null, true]);
    const { subscriptionId } = await subscribe(s, withTrial, { extra: { allow_trial: false } });
    expect((await subscription(s, subscriptionId)).status).toBe("active");
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([2500]);
  }, 60_000);
});

describe("the trial's reminder, and PATCH {trial_end}", () => {
  it("the reminder 3 days before; an extension re-arms it; `now` ends the trial and charges", async () => {
    const s = await shop("TrialPatch", at(7, 1));
    const productId = await product(s, { trial_interval: "day", trial_interval_count: 10 });
    const { subscriptionId, email } = await subscribe(s, productId);
    const mails = () =>
      server.sql<{ subject: string }>(
        "select subject from kassa_mail where kind = 'subscription-trial-ending' and to_address = $1",
        email,
      );
    // The trial ends 11 July at 10:00: the mail is due on 8 July at 10:00, not before.
    expect((await advance(s, { to: at(7, 8, 9).toISOString() })).ran.trial_reminders).toBe(0);
    expect(await mails()).toHaveLength(0);
    expect((await advance(s, { to: at(7, 8, 11).toISOString() })).ran.trial_reminders).toBe(1);
    expect(await mails()).toHaveLength(1);
    expect((await row(subscriptionId)).trial_reminded_at).not.toBeNull();

    // Extended to 21 July: trialing, the period ends then, and the reminder is due again.
    const later = at(7, 21).toISOString();
    const extended = await patch(s, subscriptionId, { trial_end: later });
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    expect(extended.body).toMatchObject({ status: "trialing", trial_end: later, current_period_end: later });
    expect((await row(subscriptionId)).trial_reminded_at).toBeNull();
    // Nothing happens on the old end; the new reminder goes on 18 July.
    expect((await advance(s, { to: at(7, 18, 11).toISOString() })).ran).toMatchObject({
      renewals: 0,
      trial_reminders: 1,
    });
    expect(await mails()).toHaveLength(2);

    // Ended now (18 July at 11:00): the first period is charged at once and starts now.
    const now = at(7, 18, 11).toISOString();
    const ended = await patch(s, subscriptionId, { trial_end: "now" });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(ended.body).toMatchObject({
      status: "active",
      trial_end: now,
      current_period_start: now,
      current_period_end: at(8, 18, 11).toISOString(),
    });
    expect((await row(subscriptionId)).anchor_day).toBe(18);
    expect((await ordersOf(subscriptionId)).map((o) => [o.billing_reason, o.status, o.total_amount])).toEqual(
      [
        ["subscription_create", "paid", 0],
        ["subscription_cycle", "paid", 2500],
      ],
    );
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([2500]);
    // Now active: no trial to end; a new trial must end after the paid period.
    const again = await patch(s, subscriptionId, { trial_end: "now" });
    expect(again.status).toBe(422);
    expect(again.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "trial_end"],
        msg: "The subscription is not currently trialing.",
        input: "now",
      },
    ]);
    const early = await patch(s, subscriptionId, { trial_end: at(8, 1).toISOString() });
    expect(early.status).toBe(422);
    expect(early.body.detail[0]).toMatchObject({
      loc: ["body", "trial_end"],
      msg: "Trial end must be after the current period end.",
    });
    const past = await patch(s, subscriptionId, { trial_end: at(7, 1).toISOString() });
    expect(past.status).toBe(422);
    expect(past.body.detail[0]).toMatchObject({ type: "datetime_future", loc: ["body", "trial_end"] });
    const junk = await patch(s, subscriptionId, { trial_end: "tomorrow" });
    expect(junk.status).toBe(422);
    const extra = await patch(s, subscriptionId, { trial_end: "now", revoke: true });
    expect(extra.status).toBe(422);

    // A trial on an active subscription: trialing until then, and the next charge is then.
    const gift = at(9, 1).toISOString();
    const granted = await sdk(server, s.token).subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { trialEnd: new Date(gift) },
    });
    expect(granted.status).toBe("trialing");
    expect(granted.currentPeriodEnd.toISOString()).toBe(gift);
    expect((await advance(s, { to: at(8, 31).toISOString() })).ran).toMatchObject({ renewals: 0 });
    expect((await advance(s, { to: at(9, 1, 11).toISOString() })).ran).toMatchObject({
      renewals: 1,
      paid: 1,
    });
    const after = await subscription(s, subscriptionId);
    expect(after).toMatchObject({ status: "active", current_period_end: at(10, 1).toISOString() });

    // A revoked subscription: 403.
    await call(server, s.token, "DELETE", `/v1/subscriptions/${subscriptionId}`);
    const gone = await patch(s, subscriptionId, { trial_end: at(12, 1).toISOString() });
    expect(gone.status).toBe(403);
    expect(gone.body.error).toBe("InactiveSubscription");

    const updates = await hooks(s, 6, ["subscription.updated"]);
    expect(updates.map((e) => e.data.status)).toEqual([
      // On creation (Polar's extra update), then the trial_end PATCH.
      "trialing",
      "trialing",
      "active",
      "trialing",
      "active",
      "canceled",
    ]);
  }, 90_000);

  it("a standing test clock: a trial ended now, given again and ended now at the same instant is refused, then ends once the clock moves", async () => {
    const s = await shop("TrialTwice", at(7, 1));
    const productId = await product(s, { trial_interval: "day", trial_interval_count: 10 });
    const { subscriptionId } = await subscribe(s, productId);
    const first = await patch(s, subscriptionId, { trial_end: "now" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // A new trial to 1 September, then `now` again while the clock still stands on 1 July.
    const gift = await patch(s, subscriptionId, { trial_end: at(9, 1).toISOString() });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    expect(gift.body.status).toBe("trialing");
    const again = await patch(s, subscriptionId, { trial_end: "now" });
    expect(again.status, JSON.stringify(again.body)).toBe(422);
    expect(again.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "trial_end"],
        msg: "The subscription already renewed at this time: advance the test clock before ending the trial now.",
        input: "now",
      },
    ]);
    // Nothing changed: still trialing to 1 September, one paid period.
    expect(await subscription(s, subscriptionId)).toMatchObject({
      status: "trialing",
      current_period_end: at(9, 1).toISOString(),
    });
    const paid = async () =>
      (await ordersOf(subscriptionId))
        .filter((o) => o.billing_reason === "subscription_cycle")
        .map((o) => o.total_amount);
    expect(await paid()).toEqual([2500]);
    // An hour later it ends and the new period is charged.
    await advance(s, { to: at(7, 1, 11).toISOString() });
    const later = await patch(s, subscriptionId, { trial_end: "now" });
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    expect(later.body).toMatchObject({ status: "active", current_period_start: at(7, 1, 11).toISOString() });
    expect(await paid()).toEqual([2500, 2500]);
  }, 60_000);

  it("refuses a trial on a one-time product, and half a trial", async () => {
    const s = await shop("TrialRefusals");
    const once = await call(server, s.token, "POST", "/v1/products/", {
      name: "Ebook",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
      trial_interval: "day",
      trial_interval_count: 7,
    });
    expect(once.status).toBe(422);
    expect(once.body.detail.map((d: Json) => [d.loc, d.msg])).toEqual([
      [["body", "trial_interval"], "Trial configuration is only supported on recurring products."],
      [["body", "trial_interval_count"], "Trial configuration is only supported on recurring products."],
    ]);
    const half = await call(server, s.token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
      trial_interval: "day",
    });
    expect(half.status).toBe(422);
    expect(half.body.detail[0]).toMatchObject({
      loc: ["body", "trial_interval_count"],
      msg: "Both trial_interval and trial_interval_count must be set together.",
    });
    const tooLong = await call(server, s.token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
      trial_interval: "fortnight",
      trial_interval_count: 1,
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(["body", "trial_interval"]);

    // Update: a one-time product refuses it; a recurring one takes it, and null removes it.
    const ebook = await call(server, s.token, "POST", "/v1/products/", {
      name: "Ebook",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
    });
    const onOnce = await call(server, s.token, "PATCH", `/v1/products/${ebook.body.id}`, {
      trial_interval: "week",
      trial_interval_count: 2,
    });
    expect(onOnce.status).toBe(422);
    expect(onOnce.body.detail[0].loc).toEqual(["body", "trial_interval"]);
    const pro = await product(s, {});
    const set = await call(server, s.token, "PATCH", `/v1/products/${pro}`, {
      trial_interval: "week",
      trial_interval_count: 2,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect([set.body.trial_interval, set.body.trial_interval_count]).toEqual(["week", 2]);
    const polar = sdk(server, s.token);
    expect((await polar.products.get({ id: pro })).trialIntervalCount).toBe(2);
    const cleared = await call(server, s.token, "PATCH", `/v1/products/${pro}`, {
      trial_interval: null,
      trial_interval_count: null,
    });
    expect([cleared.body.trial_interval, cleared.body.trial_interval_count]).toEqual([null, null]);
    // A checkout's trial on a one-time product is no trial.
    const { checkout } = await openCheckout(s, ebook.body.id, {
      trial_interval: "day",
      trial_interval_count: 3,
    });
    expect([checkout.active_trial_interval, checkout.trial_end, checkout.is_payment_required]).toEqual([
      null,
      null,
      true,
    ]);
  }, 60_000);
});

describe("a plan change during a trial (Polar's rule: the trial is never prorated)", () => {
  it("to a product with a longer trial: the trial runs to its end counted from its start, on the new interval, nothing charged", async () => {
    const start = at(1, 20);
    const s = await shop("TrialChangeKeeps", start);
    const monthly = await product(s, { trial_interval: "day", trial_interval_count: 14 });
    const yearly = await product(s, {
      name: "Pro yearly",
      recurring_interval: "year",
      prices: [{ amount_type: "fixed", price_amount: 25000 }],
      trial_interval: "day",
      trial_interval_count: 30,
    });
    const { subscriptionId } = await subscribe(s, monthly);
    await advance(s, { to: at(1, 25).toISOString() });
    // Worked example: the trial began 20 January at 10:00; the yearly plan's 30 days end it on
    // 19 February at 10:00 (not a year from the change, and not the old 3 February).
    const changed = await patch(s, subscriptionId, { product_id: yearly, proration_behavior: "invoice" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      status: "trialing",
      product_id: yearly,
      recurring_interval: "year",
      trial_start: start.toISOString(),
      trial_end: at(2, 19).toISOString(),
      current_period_start: start.toISOString(),
      current_period_end: at(2, 19).toISOString(),
      amount: 25000,
    });
    expect((await ordersOf(subscriptionId)).map((o) => o.billing_reason)).toEqual(["subscription_create"]);
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);
    // The trial's end charges the yearly price for a year from that day.
    const ended = await advance(s, { to: new Date(at(2, 19).getTime() + 60_000).toISOString() });
    expect(ended.ran).toMatchObject({ renewals: 1, charges: 1, paid: 1 });
    expect(await subscription(s, subscriptionId)).toMatchObject({
      status: "active",
      current_period_start: at(2, 19).toISOString(),
      current_period_end: new Date(Date.UTC(YEAR + 1, 1, 19, 10)).toISOString(),
    });
    expect((await chargesOf(s.merchant.organizationId)).map((c) => [c.amount, c.status])).toEqual([
      [25000, "succeeded"],
    ]);
  }, 120_000);

  it("to a product without a trial: the trial ends now and its first period is charged at once, as the preview said", async () => {
    const start = at(1, 20);
    const s = await shop("TrialChangeEnds", start);
    const trialing = await product(s, { trial_interval: "day", trial_interval_count: 14 });
    const plain = await product(s, { name: "Max", prices: [{ amount_type: "fixed", price_amount: 4000 }] });
    const { subscriptionId } = await subscribe(s, trialing);
    const changeAt = at(1, 25);
    await advance(s, { to: changeAt.toISOString() });
    const preview = await call(
      server,
      s.token,
      "GET",
      `/v1/subscriptions/${subscriptionId}/preview?product_id=${plain}&proration_behavior=prorate`,
    );
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.now).toMatchObject({
      billing_reason: "subscription_cycle",
      at: changeAt.toISOString(),
      total_amount: 4000,
    });
    expect(preview.body.next_renewal).toMatchObject({ at: at(2, 25).toISOString(), total_amount: 4000 });
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);

    const changed = await patch(s, subscriptionId, { product_id: plain, proration_behavior: "prorate" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await subscription(s, subscriptionId)).toMatchObject({
      status: "active",
      product_id: plain,
      trial_end: changeAt.toISOString(),
      current_period_start: changeAt.toISOString(),
      current_period_end: at(2, 25).toISOString(),
    });
    expect((await ordersOf(subscriptionId)).map((o) => [o.billing_reason, o.status, o.total_amount])).toEqual(
      [
        ["subscription_create", "paid", 0],
        ["subscription_cycle", "paid", 4000],
      ],
    );
    expect((await chargesOf(s.merchant.organizationId)).map((c) => [c.amount, c.status])).toEqual([
      [4000, "succeeded"],
    ]);
    // One `subscription.updated` for the change, the cycle's (active), after the creation's.
    const updates = await server.sql<{ status: string }>(
      `select payload::jsonb->'data'->>'status' as status from kassa_webhook_event
       where organization_id = $1 and type = 'subscription.updated' order by seq`,
      s.merchant.organizationId,
    );
    expect(updates.map((u) => u.status)).toEqual(["trialing", "active"]);
  }, 120_000);

  it("a standing test clock: a change that would end a trial where a period already began is refused", async () => {
    const start = at(3, 2);
    const s = await shop("TrialChangeTwice", start);
    const trialing = await product(s, { trial_interval: "day", trial_interval_count: 14 });
    const plain = await product(s, { name: "Max", prices: [{ amount_type: "fixed", price_amount: 4000 }] });
    const { subscriptionId } = await subscribe(s, trialing);
    expect((await patch(s, subscriptionId, { trial_end: "now" })).status).toBe(200);
    // The product's trial made 60 days and the subscription given it again (to 1 May, from the
    // trial's start), so a change follows the product.
    const longer = await call(server, s.token, "PATCH", `/v1/products/${trialing}`, {
      trial_interval: "day",
      trial_interval_count: 60,
    });
    expect(longer.status, JSON.stringify(longer.body)).toBe(200);
    const own = await patch(s, subscriptionId, { trial_end: at(5, 1).toISOString() });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const changed = await patch(s, subscriptionId, { product_id: plain, proration_behavior: "prorate" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(422);
    expect(changed.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "product_id"],
        msg: "The subscription already renewed at this time: advance the test clock before ending the trial with a change.",
        input: plain,
      },
    ]);
    expect(await subscription(s, subscriptionId)).toMatchObject({ status: "trialing", product_id: trialing });
    await advance(s, { to: at(3, 2, 12).toISOString() });
    const moved = await patch(s, subscriptionId, { product_id: plain, proration_behavior: "prorate" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ status: "active", product_id: plain });
    expect(
      (await ordersOf(subscriptionId))
        .filter((o) => o.billing_reason === "subscription_cycle")
        .map((o) => o.total_amount),
    ).toEqual([2500, 4000]);
  }, 60_000);

  it("a trial the merchant extended is kept through a change to a product without one", async () => {
    const start = at(1, 20);
    const s = await shop("TrialChangeExtended", start);
    const trialing = await product(s, { trial_interval: "day", trial_interval_count: 14 });
    const plain = await product(s, { name: "Max", prices: [{ amount_type: "fixed", price_amount: 4000 }] });
    const { subscriptionId } = await subscribe(s, trialing);
    const extended = await patch(s, subscriptionId, { trial_end: at(2, 28).toISOString() });
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    await advance(s, { to: at(2, 10).toISOString() });
    // The product's 14 days (to 3 February) are past, but the trial runs to the merchant's 28th.
    const changed = await patch(s, subscriptionId, { product_id: plain });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      status: "trialing",
      product_id: plain,
      trial_end: at(2, 28).toISOString(),
      current_period_end: at(2, 28).toISOString(),
    });
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);
  }, 120_000);
});
