import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CustomerSubscription, OrganizationData, PortalClient, PortalCustomer } from "../src/portal/api";
import { parsePortalPath } from "../src/portal/app";
import { BenefitsSection } from "../src/portal/benefits";
import { BillingDetailsForm, billingBody } from "../src/portal/billing";
import { SignIn } from "../src/portal/sign-in";
import { CancelForm, SubscriptionCard } from "../src/portal/subscriptions";
import { routeFetchTo } from "./fetch";
import { renderWithTheme } from "./render";

interface Seen {
  method: string;
  path: string;
  body: unknown;
}

function stub(answer: (req: Seen) => [number, unknown] | [number, unknown, Record<string, string>]) {
  const seen: Seen[] = [];
  routeFetchTo((async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = await request.text();
    const req = {
      method: request.method,
      path: new URL(request.url, "http://localhost").pathname,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(req);
    const [status, body, headers = {}] = answer(req);
    return new Response(status === 202 ? null : JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  }) as typeof fetch);
  return seen;
}

afterEach(() => routeFetchTo(null));

const organization = {
  id: "org-1",
  name: "Acme",
  slug: "acme",
  avatar_url: null,
  allow_customer_updates: true,
  customer_portal_settings: { subscription: { update_plan: true } },
};

describe("portal addresses", () => {
  it("reads the slug and the section", () => {
    expect(parsePortalPath("/portal/acme")).toEqual({ slug: "acme", section: "overview" });
    expect(parsePortalPath("/portal/acme/billing/")).toEqual({ slug: "acme", section: "billing" });
    expect(parsePortalPath("/portal/acme/nonsense")).toEqual({ slug: "acme", section: "overview" });
    expect(parsePortalPath("/portal/")).toBeNull();
  });
});

describe("sign-in by code", () => {
  it("asks for a code, then exchanges the typed code (any case) for a token", async () => {
    const seen = stub((req) =>
      req.path.endsWith("/request") ? [202, null] : [200, { token: "polar_cst_abc" }],
    );
    const onSignedIn = vi.fn();
    renderWithTheme(<SignIn organization={organization} onSignedIn={onSignedIn} />);
    fireEvent.change(screen.getByLabelText(/E-mail/), { target: { value: "not an address" } });
    fireEvent.click(screen.getByRole("button", { name: "Send me a code" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Enter the e-mail address");
    expect(seen).toEqual([]);

    fireEvent.change(screen.getByLabelText(/E-mail/), { target: { value: "ada@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Send me a code" }));
    const code = await screen.findByLabelText("Code");
    expect(seen[0]).toMatchObject({ body: { email: "ada@example.com", organization_id: "org-1" } });
    fireEvent.change(code, { target: { value: "ab c12 3" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith("polar_cst_abc"));
    expect(seen[1]).toMatchObject({
      path: "/v1/customer-portal/customer-session/authenticate",
      body: { code: "ABC123" },
    });
  });

  it("a wrong or expired code says so in words", async () => {
    stub(() => [
      401,
      {
        error: "CustomerSessionCodeInvalidOrExpired",
        detail: "This customer session code is invalid or has expired.",
      },
    ]);
    renderWithTheme(
      <SignIn organization={organization} initialEmail="ada@example.com" onSignedIn={() => {}} />,
    );
    fireEvent.change(screen.getByLabelText("Code"), { target: { value: "ZZZZZZ" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toContain("wrong or has expired");
  });

  it("a paused sign-in says how long to wait, from Retry-After", async () => {
    stub(() => [429, { error: "TooManyRequests", detail: "Rate limit exceeded." }, { "retry-after": "841" }]);
    renderWithTheme(
      <SignIn organization={organization} initialEmail="ada@example.com" onSignedIn={() => {}} />,
    );
    fireEvent.change(screen.getByLabelText("Code"), { target: { value: "ABC123" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Try again in 15 minutes.");
  });
});

const customer: PortalCustomer = {
  created_at: "2026-01-01T00:00:00Z",
  modified_at: null,
  id: "c-1",
  email: "ada@example.com",
  email_verified: true,
  name: "Ada",
  billing_name: "Ada",
  billing_address: { country: "FR", line1: null, line2: null, postal_code: null, city: "Paris", state: null },
  tax_id: null,
  oauth_accounts: {},
  default_payment_method_id: null,
  type: "individual",
};

describe("billing details", () => {
  it("sends the name, address and tax ID, and shows a refusal at its field", async () => {
    expect(
      billingBody({
        name: " ",
        country: "",
        line1: "",
        line2: "",
        postal_code: "",
        city: "",
        state: "",
        tax_id: "",
      }),
    ).toEqual({
      name: null,
      tax_id: null,
    });
    const onSave = vi.fn(async () => {
      const { V1Error } = await import("../src/portal/api");
      throw new V1Error(422, "RequestValidationError", "Invalid", [
        { type: "value_error", loc: ["body", "tax_id"], msg: "Invalid tax ID.", input: "x" },
      ]);
    });
    renderWithTheme(<BillingDetailsForm customer={customer} onSave={onSave} />);
    fireEvent.change(screen.getByLabelText("Tax ID"), { target: { value: "x" } });
    fireEvent.click(screen.getByRole("button", { name: "Save billing details" }));
    expect(await screen.findByText("Invalid tax ID.")).toBeTruthy();
    expect(onSave).toHaveBeenCalledWith({
      name: "Ada",
      tax_id: "x",
      billing_address: {
        country: "FR",
        line1: null,
        line2: null,
        postal_code: null,
        city: "Paris",
        state: null,
      },
    });
  });
});

describe("cancellation", () => {
  it("sends the chosen reason and the comment", async () => {
    const onCancel = vi.fn(async () => {});
    const subscription = {
      id: "s-1",
      current_period_end: "2026-06-01T00:00:00Z",
      product: { name: "Pro" },
    } as unknown as CustomerSubscription;
    const { user } = renderWithTheme(
      <CancelForm subscription={subscription} onCancel={onCancel} onClose={() => {}} />,
    );
    expect(screen.getByText(/You keep Pro until/)).toBeTruthy();
    await user.click(screen.getAllByLabelText("Why are you canceling?")[0]!);
    await user.click(await screen.findByRole("option", { name: "I don't use it enough" }));
    fireEvent.change(screen.getByLabelText("Anything else the seller should know?"), {
      target: { value: "  Busy  " },
    });
    fireEvent.click(screen.getByRole("button", { name: "Cancel subscription" }));
    await waitFor(() => expect(onCancel).toHaveBeenCalledWith("unused", "Busy"));
  });
});

describe("a subscription with a separate meter cycle in the portal", () => {
  it("says when the current usage period ends, beside the renewal; a plan without one says nothing of it", async () => {
    const base = {
      id: "s-9",
      status: "active",
      amount: 12000,
      currency: "usd",
      recurring_interval: "year",
      recurring_interval_count: 1,
      cancel_at_period_end: false,
      ends_at: null,
      ended_at: null,
      current_period_end: "2027-12-01T00:00:00Z",
      current_meter_period_end: "2027-01-01T00:00:00Z",
      product_id: "p-pro",
      product: { name: "Pro yearly" },
    };
    const data = { organization, products: [] } as unknown as OrganizationData;
    const client = { changePreview: vi.fn(), changePlan: vi.fn() } as unknown as PortalClient;
    const day = (iso: string) =>
      new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date(iso));
    const { unmount } = renderWithTheme(
      <SubscriptionCard
        subscription={base as unknown as CustomerSubscription}
        client={client}
        data={data}
        onChanged={() => {}}
      />,
    );
    expect(screen.getByTestId("subscription-period").textContent).toBe(
      `Renews on ${day("2027-12-01T00:00:00Z")}`,
    );
    expect(screen.getByTestId("subscription-usage-period").textContent).toBe(
      `Usage is billed separately; the current usage period ends on ${day("2027-01-01T00:00:00Z")}.`,
    );
    unmount();
    renderWithTheme(
      <SubscriptionCard
        subscription={{ ...base, current_meter_period_end: null } as unknown as CustomerSubscription}
        client={client}
        data={data}
        onChanged={() => {}}
      />,
    );
    expect(screen.queryByTestId("subscription-usage-period")).toBeNull();
  });
});

describe("a plan change in the portal", () => {
  it("shows what the change charges now and at the next bill before the customer confirms", async () => {
    const subscription = {
      id: "s-1",
      status: "active",
      amount: 3000,
      currency: "usd",
      recurring_interval: "month",
      recurring_interval_count: 1,
      cancel_at_period_end: false,
      ends_at: null,
      ended_at: null,
      current_period_end: "2027-05-01T00:00:00Z",
      product_id: "p-basic",
      product: { name: "Basic" },
    } as unknown as CustomerSubscription;
    const plan = (id: string, name: string, amount: number) => ({
      id,
      name,
      recurring_interval: "month",
      prices: [{ is_archived: false, price_amount: amount, price_currency: "usd" }],
    });
    const data = {
      organization,
      products: [plan("p-basic", "Basic", 3000), plan("p-team", "Team", 6000)],
    } as unknown as OrganizationData;
    let answerPreview: (p: unknown) => void = () => {};
    const client = {
      changePreview: vi.fn(() => new Promise((resolve) => (answerPreview = resolve))),
      changePlan: vi.fn(async () => subscription),
    };
    const onChanged = vi.fn();
    const { user } = renderWithTheme(
      <SubscriptionCard
        subscription={subscription}
        client={client as unknown as PortalClient}
        data={data}
        onChanged={onChanged}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Change plan" }));
    const dialog = await screen.findByRole("dialog", { name: "Change your plan" });
    // Only the other plan is offered, with its price.
    expect(within(dialog).queryByLabelText(/^Basic/)).toBeNull();
    await user.click(within(dialog).getByLabelText("Team — $60.00 / month"));
    expect(client.changePreview).toHaveBeenCalledWith("s-1", "p-team");
    // Until the preview answers, the change cannot be confirmed.
    const confirm = within(dialog).getByRole("button", { name: "Change plan" });
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    // Worked example (the server's, subscriptions-lifecycle): on 16 April, half the period left,
    // -15.00 for Basic and +30.00 for Team: 15.00 now; 60.00 on 1 May.
    answerPreview({
      now: { total_amount: 1500, currency: "usd" },
      next_renewal: { total_amount: 6000, currency: "usd", at: "2027-05-01T00:00:00Z" },
    });
    const preview = await within(dialog).findByTestId("change-preview");
    expect(preview.textContent).toContain("Charged now: $15.00");
    const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(
      new Date("2027-05-01T00:00:00Z"),
    );
    expect(preview.textContent).toContain(`Next bill on ${day}: $60.00`);
    expect(client.changePlan).not.toHaveBeenCalled();
    await waitFor(() => expect((confirm as HTMLButtonElement).disabled).toBe(false));
    await user.click(confirm);
    await waitFor(() => expect(onChanged).toHaveBeenCalled());
    expect(client.changePlan).toHaveBeenCalledWith("s-1", "p-team");
  });

  it("a downgrade says nothing is charged now", async () => {
    const subscription = {
      id: "s-2",
      status: "active",
      amount: 6000,
      currency: "usd",
      recurring_interval: "month",
      cancel_at_period_end: false,
      current_period_end: "2027-05-01T00:00:00Z",
      product_id: "p-team",
      product: { name: "Team" },
    } as unknown as CustomerSubscription;
    const data = {
      organization,
      products: [
        {
          id: "p-basic",
          name: "Basic",
          recurring_interval: "month",
          prices: [{ is_archived: false, price_amount: 3000, price_currency: "usd" }],
        },
      ],
    } as unknown as OrganizationData;
    const client = {
      changePreview: vi.fn(async () => ({
        now: null,
        next_renewal: { total_amount: 1500, currency: "usd", at: "2027-05-01T00:00:00Z" },
      })),
      changePlan: vi.fn(),
    };
    const { user } = renderWithTheme(
      <SubscriptionCard
        subscription={subscription}
        client={client as unknown as PortalClient}
        data={data}
        onChanged={() => {}}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Change plan" }));
    const dialog = await screen.findByRole("dialog", { name: "Change your plan" });
    await user.click(within(dialog).getByLabelText("Basic — $30.00 / month"));
    const preview = await within(dialog).findByTestId("change-preview");
    expect(preview.textContent).toContain(
      "Nothing is charged now; the difference is settled on your next bill.",
    );
    expect(preview.textContent).toContain(": $15.00");
    expect(client.changePlan).not.toHaveBeenCalled();
  });
});

describe("license key activations in the portal", () => {
  // happy-dom has no `window.confirm`: each test puts its own answer there.
  afterEach(() => vi.unstubAllGlobals());

  it("deactivating asks first: cancelled, nothing is sent; confirmed, the activation is freed and the key read again", async () => {
    const grant = {
      id: "grant-1",
      is_granted: true,
      is_revoked: false,
      granted_at: "2026-03-01T10:00:00Z",
      error: null,
      benefit_id: "ben-1",
      properties: { license_key_id: "lk-1" },
      benefit: { id: "ben-1", type: "license_keys", description: "Pro license", properties: {} },
    };
    const license = {
      id: "lk-1",
      key: "ACME-1234",
      status: "granted",
      expires_at: null,
      usage: 0,
      limit_usage: null,
      limit_activations: 3,
      activations: [{ id: "act-1", label: "Work laptop", created_at: "2026-03-02T10:00:00Z" }],
    };
    const client = {
      benefitGrants: vi.fn(async () => ({ items: [grant], pagination: { total_count: 1, max_page: 1 } })),
      licenseKey: vi.fn(async () => license),
      deactivate: vi.fn(async () => undefined),
    };
    const confirm = vi.fn((_message?: string) => false);
    vi.stubGlobal("confirm", confirm);
    renderWithTheme(
      <BenefitsSection
        client={client as unknown as PortalClient}
        organizationId="org-1"
        onExpired={() => {}}
      />,
    );
    const deactivate = await screen.findByRole("button", { name: "Deactivate" });
    fireEvent.click(deactivate);
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]?.[0]).toContain("Work laptop");
    expect(client.deactivate).not.toHaveBeenCalled();
    expect(client.licenseKey).toHaveBeenCalledTimes(1);

    confirm.mockImplementation(() => true);
    fireEvent.click(deactivate);
    await waitFor(() =>
      expect(client.deactivate).toHaveBeenCalledWith({
        key: "ACME-1234",
        organization_id: "org-1",
        activation_id: "act-1",
      }),
    );
    await waitFor(() => expect(client.licenseKey).toHaveBeenCalledTimes(2));
    expect(client.deactivate).toHaveBeenCalledTimes(1);
  });
});
