import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { answerWith, renderApp, stubServer } from "./app";
import {
  checkout,
  checkoutLink,
  customer,
  customerPageAnswers,
  customerSessionFor,
  customerState,
  dashboardAnswers,
  order,
  page,
  refund,
  session,
  subscription,
} from "./commerce-fixtures";
import { describedBy, slow } from "./render";

// The first render of a file loads (and transforms) the dashboard's lazy routes: 5 s on a quiet
// machine, more than 8 s in a loaded CI run. Under the 15 s test timeout.

describe("customers", () => {
  it("lists customers with search and e-mail filters from the address; an owner may add one", async () => {
    const { requests } = stubServer(dashboardAnswers("owner"));
    renderApp("/dashboard/acme/customers?query=ada&email=ada%40buyer.test", { session });
    await screen.findByRole("link", { name: "Ada Buyer" }, slow);
    expect(screen.getByText("ada@buyer.test")).toBeTruthy();
    expect(screen.getByRole("button", { name: "New customer" })).toBeTruthy();
    const list = requests.find((r) => r.path === "/v1/customers/" && r.query.get("page") === "1");
    expect(list?.query.get("organization_id")).toBe("org-1");
    expect(list?.query.get("query")).toBe("ada");
    expect(list?.query.get("email")).toBe("ada@buyer.test");
    // The navigation offers the commerce pages.
    for (const name of ["Customers", "Orders", "Subscriptions", "Checkouts", "Checkout links"])
      expect(screen.getAllByRole("link", { name }).length).toBeGreaterThan(0);
  });

  it("an empty list says where customers come from; a member is offered no new customer", async () => {
    stubServer({ ...dashboardAnswers("member"), "/v1/customers/": page([]) });
    renderApp("/dashboard/acme/customers", { session });
    await screen.findByText("No customers yet", {}, slow);
    expect(screen.getByText(/Customers appear here when they buy through a checkout/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "New customer" })).toBeNull();
  });

  it("a failed load shows the server's words and retries", async () => {
    let calls = 0;
    stubServer({
      ...dashboardAnswers("owner"),
      "/v1/customers/": () => {
        calls += 1;
        return calls === 1
          ? answerWith(500, { error: "InternalServerError", detail: "The database is away." })
          : page([customer]);
      },
    });
    const { user } = renderApp("/dashboard/acme/customers", { session });
    await screen.findByText("The database is away.", {}, slow);
    await user.click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByRole("link", { name: "Ada Buyer" });
  });

  it("a customer's page shows their state, orders and subscriptions; a member may not edit or delete", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("member"),
      "/v1/customers/cus-1": customer,
      "/v1/customers/cus-1/state": customerState,
      "/v1/customer-meters/": page([
        {
          ...customerState.active_meters[0],
          customer_id: "cus-1",
          meter: { id: "meter-1", name: "API calls" },
        },
      ]),
      "/v1/orders/": page([order]),
      "/v1/subscriptions/": page([subscription]),
      "/v1/refunds/": page([]),
      "/v1/events/": page([]),
      "/v1/customers/cus-1/summary": {
        customer_id: "cus-1",
        currency: "eur",
        lifetime_value: 2000,
        refunded_amount: 400,
        orders: 1,
        first_order_at: order.created_at,
        last_order_at: order.created_at,
        totals: [{ currency: "eur", lifetime_value: 2000, refunded_amount: 400, orders: 1 }],
      },
    });
    renderApp("/dashboard/acme/customers/cus-1", { session });
    await screen.findByRole("heading", { name: "Ada Buyer" }, slow);
    await screen.findByText("Pro license key");
    expect(screen.getAllByText("$19.00 / month").length).toBe(2);
    expect(await screen.findByText("API calls")).toBeTruthy();
    expect(screen.getByText("Balance -500")).toBeTruthy();
    expect(screen.getByText("1,500 used, 1,000 credited")).toBeTruthy();
    expect(requests.find((r) => r.path === "/v1/customer-meters/")?.query.get("customer_id")).toBe("cus-1");
    expect(await screen.findByRole("link", { name: "ACME-0001" })).toBeTruthy();
    expect(screen.getByText("€24.00")).toBeTruthy();
    const subs = screen.getByRole("table", { name: "The customer's subscriptions" });
    expect(within(subs).getByRole("link", { name: "Starter" })).toBeTruthy();
    expect(requests.find((r) => r.path === "/v1/orders/")?.query.get("customer_id")).toBe("cus-1");
    expect(requests.find((r) => r.path === "/v1/subscriptions/")?.query.get("customer_id")).toBe("cus-1");
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Portal link" })).toBeNull();
  });

  it("an owner makes a portal link for the customer: asked for only on the click, shown to copy and to open", async () => {
    const portalUrl = "http://localhost:3000/portal/acme?customer_session_token=polar_cst_abc";
    const { requests } = stubServer({
      ...customerPageAnswers("owner"),
      "POST /v1/customer-sessions/": customerSessionFor(portalUrl),
    });
    const { user } = renderApp("/dashboard/acme/customers/cus-1", { session });
    await screen.findByRole("heading", { name: "Ada Buyer" }, slow);
    expect(requests.some((r) => r.path === "/v1/customer-sessions/")).toBe(false);
    await user.click(screen.getByRole("button", { name: "Portal link" }));
    const dialog = await screen.findByRole("dialog", { name: "Customer portal link" });
    await within(dialog).findByText(portalUrl);
    const made = requests.filter((r) => r.method === "POST" && r.path === "/v1/customer-sessions/");
    expect(made.map((r) => r.body)).toEqual([{ customer_id: "cus-1" }]);
    expect(within(dialog).getByRole("button", { name: "Copy the portal link" })).toBeTruthy();
    expect(
      within(dialog).getByRole("link", { name: "Open the portal as this customer" }).getAttribute("href"),
    ).toBe(portalUrl);
    expect(within(dialog).getByText(/signed in to the portal as Ada Buyer/)).toBeTruthy();
  });

  it("an owner sends the customer their portal link by e-mail from the dialog: one request, and where it went", async () => {
    const portalUrl = "http://localhost:3000/portal/acme?customer_session_token=polar_cst_abc";
    const { requests } = stubServer({
      ...customerPageAnswers("owner"),
      "POST /v1/customer-sessions/": customerSessionFor(portalUrl),
      "POST /v1/customer-sessions/email": () =>
        answerWith(202, {
          id: "cs-2",
          created_at: "2026-11-25T10:00:00Z",
          expires_at: "2026-11-25T11:00:00Z",
          return_url: null,
          customer_id: "cus-1",
          email: customer.email,
        }),
    });
    const { user } = renderApp("/dashboard/acme/customers/cus-1", { session });
    await screen.findByRole("heading", { name: "Ada Buyer" }, slow);
    await user.click(screen.getByRole("button", { name: "Portal link" }));
    const dialog = await screen.findByRole("dialog", { name: "Customer portal link" });
    expect(
      within(dialog).getByText(
        `Or mail Ada Buyer a link of their own at ${customer.email}, valid for an hour.`,
      ),
    ).toBeTruthy();
    const mailed = () =>
      requests.filter((r) => r.method === "POST" && r.path === "/v1/customer-sessions/email");
    expect(mailed()).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Send by e-mail" }));
    await within(dialog).findByText(new RegExp(`The portal link is on its way to ${customer.email}\\.`));
    expect(mailed().map((r) => r.body)).toEqual([{ customer_id: "cus-1" }]);
    // Sent once: the button is gone, so a second click cannot mail again.
    expect(within(dialog).queryByRole("button", { name: "Send by e-mail" })).toBeNull();
  });

  it("a refused send shows the server's words and leaves the button to try again", async () => {
    stubServer({
      ...customerPageAnswers("admin"),
      "POST /v1/customer-sessions/": () =>
        answerWith(500, { error: "InternalServerError", detail: "Later." }),
      "POST /v1/customer-sessions/email": () =>
        answerWith(429, { error: "TooManyRequests", detail: "Ten mails a minute to one customer at most." }),
    });
    const { user } = renderApp("/dashboard/acme/customers/cus-1", { session });
    await screen.findByRole("heading", { name: "Ada Buyer" }, slow);
    await user.click(screen.getByRole("button", { name: "Portal link" }));
    const dialog = await screen.findByRole("dialog", { name: "Customer portal link" });
    await user.click(within(dialog).getByRole("button", { name: "Send by e-mail" }));
    await within(dialog).findByText("Not sent");
    expect(within(dialog).getByText("Ten mails a minute to one customer at most.")).toBeTruthy();
    expect(within(dialog).getByRole("button", { name: "Send by e-mail" })).toBeTruthy();
  });

  it("creating checks the e-mail and country first, then shows the server's 422 at its field", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("admin"),
      "POST /v1/customers/": answerWith(422, {
        error: "RequestValidationError",
        detail: [
          {
            type: "value_error",
            loc: ["body", "email"],
            msg: "A customer with this email already exists.",
            input: "x",
          },
        ],
      }),
    });
    const { user } = renderApp("/dashboard/acme/customers", { session });
    await user.click(await screen.findByRole("button", { name: "New customer" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "New customer" });
    const email = within(dialog).getByLabelText(/^E-mail/);
    await user.type(email, "not-an-address");
    await user.type(within(dialog).getByLabelText("City"), "Paris");
    await user.click(within(dialog).getByRole("button", { name: "Create customer" }));
    await waitFor(() => expect(describedBy(email)).toContain("This is not an e-mail address."));
    expect(describedBy(within(dialog).getByLabelText("Country"))).toContain("two letters");
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.clear(email);
    await user.type(email, "ada@buyer.test");
    await user.type(within(dialog).getByLabelText("Country"), "fr");
    await user.type(within(dialog).getByLabelText("External id"), "user_42");
    await user.click(within(dialog).getByRole("button", { name: "Create customer" }));
    await waitFor(() => expect(describedBy(email)).toContain("A customer with this email already exists."));
    const post = requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"));
    expect(post?.body).toMatchObject({
      email: "ada@buyer.test",
      external_id: "user_42",
      billing_address: { city: "Paris", country: "FR", line1: null },
      metadata: {},
    });
  });

  it("editing keeps a set external id locked and never sends it; deleting asks first", async () => {
    const withExternal = { ...customer, external_id: "user_1" };
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/customers/cus-1": (r: { method: string }) =>
        r.method === "PATCH"
          ? { ...withExternal, name: "Ada B." }
          : r.method === "DELETE"
            ? undefined
            : withExternal,
      "/v1/customers/cus-1/state": customerState,
      "/v1/orders/": page([]),
      "/v1/subscriptions/": page([]),
    });
    const { user, router } = renderApp("/dashboard/acme/customers/cus-1", { session });
    await user.click(await screen.findByRole("button", { name: "Edit" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Edit customer" });
    expect((within(dialog).getByLabelText("External id") as HTMLInputElement).disabled).toBe(true);
    const name = within(dialog).getByLabelText("Name");
    await user.clear(name);
    await user.type(name, "Ada B.");
    await user.click(within(dialog).getByRole("button", { name: "Save customer" }));
    await waitFor(() => expect(requests.some((r) => r.method === "PATCH")).toBe(true));
    const patch = requests.find((r) => r.method === "PATCH");
    expect(patch?.body).toMatchObject({
      name: "Ada B.",
      email: "ada@buyer.test",
      metadata: { plan: "gold" },
    });
    expect(patch?.body).not.toHaveProperty("external_id");

    await user.click(screen.getByRole("button", { name: "Delete" }));
    const confirm = await screen.findByRole("dialog", { name: "Delete this customer?" });
    expect(requests.some((r) => r.method === "DELETE")).toBe(false);
    await user.click(within(confirm).getByRole("button", { name: "Delete customer" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard/acme/customers"));
    expect(requests.find((r) => r.method === "DELETE")?.path).toBe("/v1/customers/cus-1");
  });
});

describe("orders", () => {
  const orderAnswers = (role: "owner" | "member", o = order) => ({
    ...dashboardAnswers(role),
    "/v1/orders/ord-1": o,
    "/v1/orders/ord-1/invoice": { url: "https://files.test/invoice-ACME-0001.pdf" },
    "/v1/orders/ord-1/receipt": { url: "https://files.test/receipt-ACME-0001.pdf" },
    "/v1/refunds/": page([refund]),
  });

  it("lists orders with the customer, product and status filters from the address", async () => {
    const { requests } = stubServer({ ...dashboardAnswers("owner"), "/v1/orders/": page([order]) });
    renderApp("/dashboard/acme/orders?customer_id=cus-1&product_id=prod-1&status=paid", { session });
    await screen.findByRole("link", { name: "ACME-0001" }, slow);
    const table = screen.getByRole("table", { name: "Orders" });
    expect(within(table).getByText("€24.00")).toBeTruthy();
    expect(within(table).getByText("Paid")).toBeTruthy();
    expect(within(table).getByRole("link", { name: "Ada Buyer" })).toBeTruthy();
    const list = requests.find((r) => r.path === "/v1/orders/");
    expect(list?.query.get("customer_id")).toBe("cus-1");
    expect(list?.query.get("product_id")).toBe("prod-1");
    expect(list?.query.get("status")).toBe("paid");
    // The export downloads what the list shows: the same filters, no page.
    const exportLink = screen.getByRole("link", { name: "Export CSV" });
    const href = new URL(exportLink.getAttribute("href") ?? "", "http://kassa.test");
    expect(href.pathname).toBe("/v1/orders/export");
    expect(Object.fromEntries(href.searchParams)).toEqual({
      organization_id: "org-1",
      customer_id: "cus-1",
      product_id: "prod-1",
      status: "paid",
    });
    expect(exportLink.hasAttribute("download")).toBe(true);
  });

  it("an empty list says how the first order comes", async () => {
    stubServer({ ...dashboardAnswers("owner"), "/v1/orders/": page([]) });
    renderApp("/dashboard/acme/orders", { session });
    await screen.findByText("No orders yet", {}, slow);
    expect(screen.getByText(/Share a checkout link to make your first sale/)).toBeTruthy();
  });

  it("an order shows its items and amounts in its currency, the invoice link and its refunds", async () => {
    stubServer(
      orderAnswers("owner", {
        ...order,
        status: "partially_refunded",
        refunded_amount: 500,
        refunded_tax_amount: 100,
      }),
    );
    renderApp("/dashboard/acme/orders/ord-1", { session });
    await screen.findByRole("heading", { name: "Order ACME-0001" }, slow);
    const amounts = screen.getByRole("table", { name: "Order amounts" });
    const row = (label: RegExp) => within(amounts).getByRole("row", { name: label }).textContent;
    expect(row(/^Subtotal/)).toContain("€25.00");
    expect(row(/^Discount/)).toContain("−€5.00");
    expect(row(/^Discount/)).toContain("LAUNCH");
    expect(row(/^Tax/)).toContain("€4.00");
    expect(row(/^Total/)).toContain("€24.00");
    expect(row(/^Refunded/)).toContain("−€6.00");
    const invoice = await screen.findByRole("link", { name: /Open the invoice/ });
    expect(invoice.getAttribute("href")).toBe("https://files.test/invoice-ACME-0001.pdf");
    const refunds = await screen.findByRole("table", { name: "Refunds of this order" });
    expect(within(refunds).getByText("Requested by the customer")).toBeTruthy();
    expect(within(refunds).getByText("Succeeded")).toBeTruthy();
    expect(screen.getByText("75001 Paris")).toBeTruthy();
  });

  it("refund dialog: reason and amount checked at their fields, the maximum shown, the server's 422 at its field", async () => {
    const { requests } = stubServer({
      ...orderAnswers("owner"),
      "POST /v1/refunds/": answerWith(422, {
        error: "RequestValidationError",
        detail: [
          {
            type: "value_error",
            loc: ["body", "amount"],
            msg: "Refund amount exceeds the refundable amount.",
            input: 1500,
          },
        ],
      }),
    });
    const { user } = renderApp("/dashboard/acme/orders/ord-1", { session });
    await user.click(await screen.findByRole("button", { name: "Refund" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Refund this order" });
    expect(within(dialog).getByText("€20.00", { selector: "b" })).toBeTruthy();
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() =>
      expect(describedBy(within(dialog).getAllByLabelText(/^Reason/)[0]!)).toContain(
        "Choose why you refund.",
      ),
    );
    expect(requests.some((r) => r.method === "POST" && r.path.startsWith("/v1/"))).toBe(false);

    await user.click(within(dialog).getAllByLabelText(/^Reason/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Duplicate payment" }));
    await user.click(within(dialog).getByRole("checkbox", { name: /Refund the whole/ }));
    const amount = within(dialog).getByLabelText(/^Amount \(EUR\)/);
    await user.clear(amount);
    await user.type(amount, "25");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() => expect(describedBy(amount)).toContain("At most €20.00 can be refunded."));

    await user.clear(amount);
    await user.type(amount, "15");
    await user.click(within(dialog).getByRole("checkbox", { name: /Revoke the benefits/ }));
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() =>
      expect(describedBy(amount)).toContain("Refund amount exceeds the refundable amount."),
    );
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      order_id: "ord-1",
      reason: "duplicate",
      amount: 1500,
      comment: null,
      revoke_benefits: true,
    });
  });

  it("a full refund sends the refundable amount and closes", async () => {
    const { requests } = stubServer({ ...orderAnswers("owner"), "POST /v1/refunds/": refund });
    const { user } = renderApp("/dashboard/acme/orders/ord-1", { session });
    await user.click(await screen.findByRole("button", { name: "Refund" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Refund this order" });
    await user.click(within(dialog).getAllByLabelText(/^Reason/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Requested by the customer" }));
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Refund this order" })).toBeNull());
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toMatchObject({
      amount: 2000,
      reason: "customer_request",
      revoke_benefits: false,
    });
  });

  it("a refusal about the order itself is shown in the dialog; a subscription's order keeps its benefits", async () => {
    stubServer({
      ...orderAnswers("owner", { ...order, subscription_id: "sub-1" }),
      "POST /v1/refunds/": answerWith(422, {
        error: "RequestValidationError",
        detail: [
          {
            type: "value_error",
            loc: ["body", "order_id"],
            msg: "Order has no payment to refund (it was free of charge).",
            input: "ord-1",
          },
        ],
      }),
    });
    const { user } = renderApp("/dashboard/acme/orders/ord-1", { session });
    await user.click(await screen.findByRole("button", { name: "Refund" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Refund this order" });
    const revoke = within(dialog).getByRole("checkbox", { name: /Revoke the benefits/ }) as HTMLInputElement;
    expect(revoke.disabled).toBe(true);
    await user.click(within(dialog).getAllByLabelText(/^Reason/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Other" }));
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    const alert = await within(dialog).findByRole("alert");
    expect(alert.textContent).toContain("Order has no payment to refund (it was free of charge).");
  });

  it("a member reads an order but may not refund it nor generate its invoice", async () => {
    stubServer(orderAnswers("member", { ...order, is_invoice_generated: false }));
    renderApp("/dashboard/acme/orders/ord-1", { session });
    await screen.findByRole("heading", { name: "Order ACME-0001" }, slow);
    expect(screen.getByText("Not generated yet.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Refund" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Generate invoice" })).toBeNull();
  });

  it("a paid order links its receipt, next to the invoice, to open in a new tab; a member sees it too", async () => {
    stubServer(orderAnswers("member", { ...order, status: "refunded" }));
    renderApp("/dashboard/acme/orders/ord-1", { session });
    const receipt = await screen.findByRole("link", { name: /Open the receipt/ }, slow);
    expect(receipt.getAttribute("href")).toBe("https://files.test/receipt-ACME-0001.pdf");
    expect(receipt.getAttribute("target")).toBe("_blank");
    const details = screen.getByRole("table", { name: "Order details" });
    const labels = within(details)
      .getAllByRole("row")
      .map((row) => row.querySelector("th")?.textContent);
    expect(labels.slice(labels.indexOf("Invoice"))).toEqual(["Invoice", "Receipt"]);
  });

  it("an unpaid order has no receipt and does not ask for one", async () => {
    const { requests } = stubServer(orderAnswers("owner", { ...order, status: "pending", paid: false }));
    renderApp("/dashboard/acme/orders/ord-1", { session });
    await screen.findByRole("link", { name: /Open the invoice/ }, slow);
    expect(screen.queryByRole("link", { name: /Open the receipt/ })).toBeNull();
    expect(within(screen.getByRole("table", { name: "Order details" })).queryByText("Receipt")).toBeNull();
    expect(requests.some((r) => r.path.endsWith("/receipt"))).toBe(false);
  });

  it("an owner generates the invoice, then gets its link", async () => {
    let generated = false;
    const { requests } = stubServer({
      ...orderAnswers("owner"),
      "/v1/orders/ord-1": () => ({ ...order, is_invoice_generated: generated }),
      "POST /v1/orders/ord-1/invoice": () => {
        generated = true;
        return {};
      },
    });
    const { user } = renderApp("/dashboard/acme/orders/ord-1", { session });
    await user.click(await screen.findByRole("button", { name: "Generate invoice" }, slow));
    await screen.findByRole("link", { name: /Open the invoice/ });
    expect(requests.filter((r) => r.path === "/v1/orders/ord-1/invoice").map((r) => r.method)).toEqual([
      "POST",
      "GET",
    ]);
  });
});

describe("subscriptions", () => {
  it("lists subscriptions with Polar's status parameters and shows one's period", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("member"),
      "/v1/subscriptions/": page([subscription]),
      "/v1/subscriptions/sub-1": subscription,
      "/v1/orders/": page([order]),
    });
    const { user } = renderApp("/dashboard/acme/subscriptions?status=canceling", { session });
    await screen.findByRole("link", { name: "Starter" }, slow);
    const list = requests.find((r) => r.path === "/v1/subscriptions/");
    expect(list?.query.get("active")).toBe("true");
    expect(list?.query.get("cancel_at_period_end")).toBe("true");
    const href = new URL(
      screen.getByRole("link", { name: "Export CSV" }).getAttribute("href") ?? "",
      "http://kassa.test",
    );
    expect(href.pathname).toBe("/v1/subscriptions/export");
    expect(Object.fromEntries(href.searchParams)).toEqual({
      organization_id: "org-1",
      active: "true",
      cancel_at_period_end: "true",
    });
    expect(screen.getByText("$19.00 / month")).toBeTruthy();
    await user.click(screen.getByRole("link", { name: "Starter" }));
    await screen.findByRole("heading", { name: "Starter for Ada Buyer" });
    const details = screen.getByRole("table", { name: "Subscription details" });
    expect(within(details).getByRole("row", { name: /^Cancellation/ }).textContent).toMatch(
      /Cancels at the end of the period/,
    );
    expect(within(details).getByRole("row", { name: /^Customer's reason/ }).textContent).toContain(
      "too expensive",
    );
    expect(requests.some((r) => r.path === "/v1/orders/" && r.query.get("subscription_id") === "sub-1")).toBe(
      true,
    );
  });
});

describe("checkouts", () => {
  it("lists checkouts by status and creates one for a product, showing its URL to copy", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/checkouts/": page([checkout]),
      "POST /v1/checkouts/": { ...checkout, id: "chk-2" },
    });
    const { user } = renderApp("/dashboard/acme/checkouts?status=open", { session });
    const table = await screen.findByRole("table", { name: "Checkouts" }, slow);
    expect(within(table).getByText("buyer@acme.test")).toBeTruthy();
    expect(within(table).getByText("Open")).toBeTruthy();
    expect(requests.find((r) => r.path === "/v1/checkouts/")?.query.get("status")).toBe("open");

    await user.click(screen.getByRole("button", { name: "New checkout" }));
    const dialog = await screen.findByRole("dialog", { name: "New checkout" });
    await user.click(within(dialog).getByRole("button", { name: "Create checkout" }));
    await waitFor(() =>
      expect(describedBy(within(dialog).getAllByLabelText(/^Product/)[0]!)).toContain(
        "Choose the product to sell.",
      ),
    );
    await user.click(within(dialog).getAllByLabelText(/^Product/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Starter" }));
    expect(within(dialog).getByText("Price: $19.00 / month")).toBeTruthy();
    await user.type(within(dialog).getByLabelText("Success URL"), "https://acme.test/thanks");
    await user.click(within(dialog).getByRole("button", { name: "Create checkout" }));
    const url = await within(dialog).findByLabelText("Checkout URL");
    expect((url as HTMLInputElement).value).toBe(checkout.url);
    expect(within(dialog).getByRole("button", { name: "Copy Checkout URL" })).toBeTruthy();
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      products: ["prod-1"],
      customer_id: null,
      discount_id: null,
      success_url: "https://acme.test/thanks",
    });
  });

  it("a checkout's page shows its amounts and a link to open it; a member may not create one", async () => {
    stubServer({
      ...dashboardAnswers("member"),
      "/v1/checkouts/": page([checkout]),
      "/v1/checkouts/chk-1": checkout,
    });
    const { user } = renderApp("/dashboard/acme/checkouts", { session });
    await screen.findByRole("table", { name: "Checkouts" }, slow);
    expect(screen.queryByRole("button", { name: "New checkout" })).toBeNull();
    await user.click(screen.getAllByRole("link", { name: /2026/ })[0]!);
    await screen.findByRole("heading", { name: "Checkout for Starter" });
    expect(screen.getByRole("link", { name: /Open the checkout page/ }).getAttribute("href")).toBe(
      checkout.url,
    );
    const details = screen.getByRole("table", { name: "Checkout details" });
    expect(within(details).getByRole("row", { name: /^Total/ }).textContent).toContain("$19.00");
  });
});

describe("checkout links", () => {
  it("lists links with their URL to copy; creates one, with each refusal at its field", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/checkout-links/": page([checkoutLink]),
      "POST /v1/checkout-links/": answerWith(422, {
        error: "RequestValidationError",
        detail: [
          {
            type: "url_parsing",
            loc: ["body", "success_url"],
            msg: "Input should be a valid URL",
            input: "x",
          },
        ],
      }),
    });
    const { user } = renderApp("/dashboard/acme/checkout-links", { session });
    const table = await screen.findByRole("table", { name: "Checkout links" }, slow);
    expect(within(table).getByText(checkoutLink.url)).toBeTruthy();
    expect(within(table).getByRole("button", { name: "Copy the address of Homepage button" })).toBeTruthy();

    await user.click(screen.getByRole("button", { name: "New checkout link" }));
    const dialog = await screen.findByRole("dialog", { name: "New checkout link" });
    await user.click(within(dialog).getByRole("button", { name: "Create link" }));
    expect(within(dialog).getByText("Choose at least one product.")).toBeTruthy();
    await user.click(within(dialog).getAllByLabelText(/^Products/)[0]!);
    await user.click(await screen.findByRole("option", { name: "Starter" }));
    await user.type(within(dialog).getByLabelText(/^Label/), "Pricing page");
    await user.click(within(dialog).getByRole("switch", { name: "Require a billing address" }));
    await user.type(within(dialog).getByLabelText(/^Success URL/), "https://acme.test/ok");
    await user.click(within(dialog).getByRole("button", { name: "Create link" }));
    await waitFor(() =>
      expect(describedBy(within(dialog).getByLabelText(/^Success URL/))).toContain(
        "Input should be a valid URL",
      ),
    );
    expect(requests.find((r) => r.method === "POST" && r.path.startsWith("/v1/"))?.body).toEqual({
      payment_processor: "stripe",
      products: ["prod-1"],
      label: "Pricing page",
      allow_discount_codes: true,
      require_billing_address: true,
      discount_id: null,
      success_url: "https://acme.test/ok",
      metadata: {},
    });
  });

  it("editing shows the link's URL and sends its changes", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/checkout-links/": page([checkoutLink]),
      "PATCH /v1/checkout-links/link-1": { ...checkoutLink, allow_discount_codes: false },
    });
    const { user } = renderApp("/dashboard/acme/checkout-links", { session });
    await user.click(await screen.findByRole("button", { name: "Homepage button" }, slow));
    const dialog = await screen.findByRole("dialog", { name: "Edit checkout link" });
    expect((within(dialog).getByLabelText("Checkout link URL") as HTMLInputElement).value).toBe(
      checkoutLink.url,
    );
    await user.click(within(dialog).getByRole("switch", { name: "Allow discount codes" }));
    await user.click(within(dialog).getByRole("button", { name: "Add metadata" }));
    await user.type(within(dialog).getByLabelText("Metadata key 1"), "campaign");
    await user.type(within(dialog).getByLabelText("Metadata value 1"), "spring");
    await user.click(within(dialog).getByRole("button", { name: "Save link" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit checkout link" })).toBeNull());
    const patch = requests.find((r) => r.method === "PATCH");
    expect(patch?.path).toBe("/v1/checkout-links/link-1");
    expect(patch?.body).toEqual({
      products: ["prod-1"],
      label: "Homepage button",
      allow_discount_codes: false,
      require_billing_address: false,
      discount_id: null,
      success_url: null,
      metadata: { campaign: "spring" },
    });
  });

  it("deleting asks first; a member sees the links without any action", async () => {
    const { requests } = stubServer({
      ...dashboardAnswers("admin"),
      "/v1/checkout-links/": page([checkoutLink]),
      "DELETE /v1/checkout-links/link-1": new Response(null, { status: 204 }),
    });
    const { user } = renderApp("/dashboard/acme/checkout-links", { session });
    await user.click(await screen.findByRole("button", { name: "Delete Homepage button" }, slow));
    const confirm = await screen.findByRole("dialog", { name: "Delete this checkout link?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete link" }));
    await waitFor(() => expect(requests.some((r) => r.method === "DELETE")).toBe(true));
    expect(requests.find((r) => r.method === "DELETE")?.path).toBe("/v1/checkout-links/link-1");
  });

  it("each link opens the buyer's page in a new tab, for members too", async () => {
    stubServer({ ...dashboardAnswers("member"), "/v1/checkout-links/": page([checkoutLink]) });
    renderApp("/dashboard/acme/checkout-links", { session });
    const table = await screen.findByRole("table", { name: "Checkout links" }, slow);
    const open = within(table).getByRole("link", { name: "Open Homepage button" });
    expect(open.getAttribute("href")).toBe(checkoutLink.url);
    expect(open.getAttribute("target")).toBe("_blank");
    expect(open.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("a member reads the links but gets no create, edit or delete", async () => {
    stubServer({ ...dashboardAnswers("member"), "/v1/checkout-links/": page([checkoutLink]) });
    renderApp("/dashboard/acme/checkout-links", { session });
    await screen.findByRole("table", { name: "Checkout links" }, slow);
    expect(screen.queryByRole("button", { name: "New checkout link" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete Homepage button" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Homepage button" })).toBeNull();
    expect(screen.getByText("Homepage button")).toBeTruthy();
  });
});

describe("the search of the discounts, benefits, meters and custom fields lists", () => {
  const lists = [
    { path: "discounts", api: "/v1/discounts/", matches: "No discount matches", none: "No discounts yet" },
    { path: "benefits", api: "/v1/benefits/", matches: "No benefit matches", none: "No benefits yet" },
    { path: "meters", api: "/v1/meters/", matches: "No meter matches", none: "No meters yet" },
    {
      path: "custom-fields",
      api: "/v1/custom-fields/",
      matches: "No field matches",
      none: "No custom fields yet",
    },
  ];

  it.each(lists)(
    "$path: the search comes from the address and is sent as typed; nothing found says so",
    async ({ path, api, matches, none }) => {
      const { requests } = stubServer({ ...dashboardAnswers("owner"), [api]: page([]) });
      renderApp(`/dashboard/acme/${path}?query=zzz`, { session });
      await screen.findByText(matches, {}, slow);
      expect(screen.getByText("Change the search to see more.")).toBeTruthy();
      expect(screen.queryByText(none)).toBeNull();
      const field = screen.getByRole("textbox", { name: "Search" }) as HTMLInputElement;
      expect(field.value).toBe("zzz");
      expect(requests.find((r) => r.path === api)?.query.get("query")).toBe("zzz");

      fireEvent.change(field, { target: { value: "api" } });
      await waitFor(() =>
        expect(
          requests
            .filter((r) => r.path === api)
            .at(-1)
            ?.query.get("query"),
        ).toBe("api"),
      );
      // Emptied, the list is unfiltered again and says there is nothing yet.
      fireEvent.change(field, { target: { value: "" } });
      await screen.findByText(none);
      expect(
        requests
          .filter((r) => r.path === api)
          .at(-1)
          ?.query.has("query"),
      ).toBe(false);
    },
  );
});

describe("custom fields: the list's editor and delete dialog", () => {
  const field = (id: string, name: string, slug: string) => ({
    id,
    created_at: "2026-01-01T10:00:00Z",
    modified_at: null,
    organization_id: "org-1",
    type: "text",
    slug,
    name,
    metadata: {},
    properties: {},
  });
  const company = field("cf-1", "Company id", "company_id");
  const vat = field("cf-2", "VAT number", "vat_number");

  it("opens each field's own values, and a new field starts empty", async () => {
    stubServer({ ...dashboardAnswers("owner"), "/v1/custom-fields/": page([company, vat]) });
    const { user } = renderApp("/dashboard/acme/custom-fields", { session });
    await user.click(await screen.findByRole("button", { name: "Company id" }, slow));
    let dialog = await screen.findByRole("dialog", { name: "Edit custom field" });
    expect((within(dialog).getByLabelText(/^Name/) as HTMLInputElement).value).toBe("Company id");
    await user.type(within(dialog).getByLabelText(/^Name/), " (draft)");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit custom field" })).toBeNull());

    await user.click(screen.getByRole("button", { name: "VAT number" }));
    dialog = await screen.findByRole("dialog", { name: "Edit custom field" });
    expect((within(dialog).getByLabelText(/^Name/) as HTMLInputElement).value).toBe("VAT number");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit custom field" })).toBeNull());

    await user.click(screen.getByRole("button", { name: "New field" }));
    dialog = await screen.findByRole("dialog", { name: "New custom field" });
    expect((within(dialog).getByLabelText(/^Name/) as HTMLInputElement).value).toBe("");
  });

  it("a refused delete shows the server's words and keeps the dialog; the next attempt deletes", async () => {
    let refuse = true;
    const { requests } = stubServer({
      ...dashboardAnswers("owner"),
      "/v1/custom-fields/": page([company, vat]),
      "DELETE /v1/custom-fields/cf-1": () =>
        refuse
          ? new Response(
              JSON.stringify({ error: "NotPermitted", detail: "The field is in use by an open checkout." }),
              {
                status: 403,
                headers: { "content-type": "application/json" },
              },
            )
          : new Response(null, { status: 204 }),
    });
    const { user } = renderApp("/dashboard/acme/custom-fields", { session });
    await user.click(await screen.findByRole("button", { name: "Delete Company id" }, slow));
    const confirm = await screen.findByRole("dialog", { name: "Delete this field?" });
    expect(within(confirm).getByText(/Company id is removed from every product's checkout/)).toBeTruthy();
    await user.click(within(confirm).getByRole("button", { name: "Delete field" }));
    expect((await within(confirm).findByRole("alert")).textContent).toBe(
      "The field is in use by an open checkout.",
    );
    refuse = false;
    const listReads = requests.filter((r) => r.path === "/v1/custom-fields/").length;
    await user.click(within(confirm).getByRole("button", { name: "Delete field" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Delete this field?" })).toBeNull());
    expect(requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
      "/v1/custom-fields/cf-1",
      "/v1/custom-fields/cf-1",
    ]);
    // The list is read again after the delete.
    await waitFor(() =>
      expect(requests.filter((r) => r.path === "/v1/custom-fields/").length).toBeGreaterThan(listReads),
    );
  });
});
