/**
 * Renewals per second while a test clock advances over many subscriptions: a shop sells a
 * monthly plan to `subscriptions` buyers through the checkout flow (sandbox), then
 * `POST /v1/test-clock/advance` moves its clock `months` ahead, a month per request, renewing every
 * subscription each month, in time order, with an off-session charge each. The caller reports
 * it beside the checkout purchases per second of the same run: a renewal should cost less
 * than a purchase.
 */
export interface RenewalBenchResult {
  subscriptions: number;
  months: number;
  /** Purchases per second while the subscriptions were bought (8 in flight). */
  setupPurchasesPerSecond: number;
  renewals: number;
  charges: number;
  seconds: number;
  renewalsPerSecond: number;
}

export async function benchRenewals(opts: {
  base: string;
  cookie: string;
  subscriptions: number;
  months: number;
  concurrency: number;
}): Promise<RenewalBenchResult> {
  const { base } = opts;
  const session = { "content-type": "application/json", origin: base, cookie: opts.cookie };
  const json = { "content-type": "application/json" };
  const expect = async (res: Response, status: number) => {
    if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const org = await expect(
    await fetch(`${base}/api/auth/organization/create`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ name: "Renewal shop", slug: `renewal-shop-${Date.now().toString(36)}` }),
    }),
    200,
  );
  const created = await expect(
    await fetch(`${base}/v1/organization-access-tokens/?organization_id=${org.id}`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({
        comment: "bench",
        scopes: ["products:write", "checkouts:write", "subscriptions:write"],
      }),
    }),
    201,
  );
  const bearer = { authorization: `Bearer ${created.token}`, "content-type": "application/json" };
  const product = await expect(
    await fetch(`${base}/v1/products/`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({
        name: "Monthly plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1500 }],
      }),
    }),
    201,
  );
  const cardYear = new Date().getFullYear() + 2;
  let next = 0;
  const buy = async () => {
    for (;;) {
      const n = next++;
      if (n >= opts.subscriptions) return;
      const checkout = await expect(
        await fetch(`${base}/v1/checkouts/`, {
          method: "POST",
          headers: bearer,
          body: JSON.stringify({ products: [product.id], customer_email: `subscriber-${n}@example.test` }),
        }),
        201,
      );
      const token = await expect(
        await fetch(`${base}/v1/sandbox/confirmation-tokens`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            card_number: "4242424242424242",
            exp_month: 12,
            exp_year: cardYear,
            cvc: "123",
          }),
        }),
        201,
      );
      await expect(
        await fetch(`${base}/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            confirmation_token_id: token.id,
            customer_billing_address: { country: "FR" },
          }),
        }),
        200,
      );
    }
  };
  const setupStart = performance.now();
  await Promise.all(Array.from({ length: opts.concurrency }, buy));
  const setupSeconds = (performance.now() - setupStart) / 1000;

  // A month per request: one request for the whole year would run longer than an HTTP client
  // waits for response headers (undici: 300 s) at today's speed.
  const start = performance.now();
  const ran = { renewals: 0, charges: 0, paid: 0 };
  for (let month = 0; month < opts.months; month++) {
    const advanced = (await expect(
      await fetch(`${base}/v1/test-clock/advance`, {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({ by: "P1M" }),
      }),
      200,
    )) as { ran: { renewals: number; charges: number; paid: number } };
    ran.renewals += advanced.ran.renewals;
    ran.charges += advanced.ran.charges;
    ran.paid += advanced.ran.paid;
  }
  const seconds = (performance.now() - start) / 1000;
  if (ran.paid !== opts.subscriptions * opts.months)
    throw new Error(`expected ${opts.subscriptions * opts.months} paid renewals, got ${JSON.stringify(ran)}`);
  return {
    subscriptions: opts.subscriptions,
    months: opts.months,
    setupPurchasesPerSecond: opts.subscriptions / setupSeconds,
    renewals: ran.renewals,
    charges: ran.charges,
    seconds,
    renewalsPerSecond: ran.renewals / seconds,
  };
}
