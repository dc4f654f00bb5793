import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { OrganizationHeader } from "../src/checkout/sections/organization-header";
import { initialsOf } from "../src/components/organization-avatar";
import { describeFilter } from "../src/features/billing/filter-builder";
import { answerWith, renderApp, sessionFor, stubServer } from "./app";
import { organizationFixture } from "./fixtures";
import { describedBy, renderWithTheme, slow } from "./render";

/** What a new merchant tripped on when trying the dashboard for the first time (issue 13). */

const session = sessionFor();
const empty = { items: [], pagination: { total_count: 0, max_page: 0 } };
const page = <T,>(items: T[]) => ({ items, pagination: { total_count: items.length, max_page: 1 } });

function ownerAnswers(extra: Record<string, unknown> = {}) {
  const organization = organizationFixture({ name: "Acme Icons" });
  organization.members = [
    {
      ...organization.members[0]!,
      userId: session.user.id,
      role: "owner",
      user: { ...organization.members[0]!.user, id: session.user.id },
    },
  ];
  return {
    "/api/auth/get-session": session,
    "/api/auth/organization/list": [
      { id: "org-1", name: "Acme Icons", slug: "acme", logo: null, createdAt: organization.createdAt },
    ],
    "/api/auth/organization/get-full-organization": organization,
    "/api/auth/organization/set-active": organization,
    "/v1/meters/": empty,
    "/v1/benefits/": empty,
    "/v1/custom-fields/": empty,
    "/v1/products/": empty,
    ...extra,
  };
}

const product = (name: string) => ({
  id: "prod-1",
  created_at: "2026-01-01T10:00:00Z",
  modified_at: null,
  name,
  description: null,
  recurring_interval: null,
  is_recurring: false,
  is_archived: false,
  organization_id: "org-1",
  metadata: {},
  benefits: [],
  medias: [],
  attached_custom_fields: [],
  prices: [
    {
      id: "price-1",
      created_at: "2026-01-01T10:00:00Z",
      modified_at: null,
      amount_type: "fixed",
      price_amount: 500,
      price_currency: "usd",
      is_archived: false,
      product_id: "prod-1",
      type: "one_time",
      recurring_interval: null,
    },
  ],
});

describe("the price editor refuses a negative price", () => {
  it("keeps -5 in the field with the refusal under it, previews no negative amount, and sends nothing", async () => {
    const { requests } = stubServer(ownerAnswers());
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    const name = await screen.findByLabelText(/^Name/, {}, slow);
    await user.type(name, "Icon pack");
    const amount = screen.getByLabelText(/^Amount \(USD\)/) as HTMLInputElement;
    await user.type(amount, "-5");
    await user.tab();
    await waitFor(() => expect(describedBy(amount)).toContain("The amount cannot be negative."));
    expect(amount.value).toBe("-5");
    expect(screen.getByTestId("price-preview-0").textContent).not.toContain("-$5.00");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    expect(describedBy(amount)).toContain("The amount cannot be negative.");
    expect(requests.filter((r) => r.method === "POST" && r.path === "/v1/products/")).toEqual([]);
  });

  it("refuses an amount above the server's maximum at the field too", async () => {
    stubServer(ownerAnswers());
    const { user } = renderApp("/dashboard/acme/products/new", { session });
    const amount = (await screen.findByLabelText(/^Amount \(USD\)/, {}, slow)) as HTMLInputElement;
    await user.type(amount, "1000000");
    await user.tab();
    await waitFor(() => expect(describedBy(amount)).toContain("At most $999,999.99."));
  });
});

describe("the browser tab follows the page", () => {
  it("says the product's name on its page, and no longer 'New product' once it is created", async () => {
    stubServer(
      ownerAnswers({
        "POST /v1/products/": product("Icon pack"),
        "/v1/products/prod-1": product("Icon pack"),
      }),
    );
    const { user, router } = renderApp("/dashboard/acme/products/new", { session });
    await user.type(await screen.findByLabelText(/^Name/, {}, slow), "Icon pack");
    await waitFor(() => expect(document.title).toBe("New product · Kassa"));
    await user.type(screen.getByLabelText(/^Amount \(USD\)/), "5");
    await user.click(screen.getByRole("button", { name: "Create product" }));
    await screen.findByRole("heading", { level: 1, name: "Products" }, slow);
    await waitFor(() => expect(document.title).toBe("Products · Kassa"));
    await router.navigate({
      to: "/dashboard/$slug/products/$productId",
      params: { slug: "acme", productId: "prod-1" },
    });
    await screen.findByRole("heading", { level: 1, name: "Icon pack" }, slow);
    await waitFor(() => expect(document.title).toBe("Icon pack · Kassa"));
  });
});

describe("tables", () => {
  it("are named for assistive technology without a caption repeating the name under them", async () => {
    stubServer(ownerAnswers({ "/v1/products/": page([product("Icon pack")]) }));
    const { container } = renderApp("/dashboard/acme/products", { session });
    await screen.findByRole("table", { name: "Products" }, slow);
    expect(container.querySelectorAll("caption")).toHaveLength(0);
  });
});

describe("the meters list says how many conditions and how they combine", () => {
  const clause = (value: string) => ({ property: "name", operator: "eq" as const, value });

  it("in words, singular and plural", () => {
    expect(describeFilter({ conjunction: "and", clauses: [] })).toBe("Every event");
    expect(describeFilter({ conjunction: "and", clauses: [clause("a")] })).toBe("1 condition");
    expect(describeFilter({ conjunction: "or", clauses: [clause("a")] })).toBe("1 condition");
    expect(describeFilter({ conjunction: "and", clauses: [clause("a"), clause("b")] })).toBe(
      "2 conditions, all must match",
    );
    expect(describeFilter({ conjunction: "or", clauses: [clause("a"), clause("b"), clause("c")] })).toBe(
      "3 conditions, any may match",
    );
    expect(
      describeFilter({
        conjunction: "or",
        clauses: [clause("a"), { conjunction: "and", clauses: [clause("b"), clause("c")] }],
      }),
    ).toBe("1 condition and 1 group, any may match");
  });

  it("on the page", async () => {
    const meter = (id: string, name: string, filter: unknown) => ({
      id,
      created_at: "2026-01-01T10:00:00Z",
      modified_at: null,
      name,
      unit: "scalar",
      filter,
      aggregation: { func: "count" },
      metadata: {},
      archived_at: null,
    });
    stubServer(
      ownerAnswers({
        "/v1/meters/": page([
          meter("m1", "Calls", { conjunction: "and", clauses: [clause("api")] }),
          meter("m2", "Uploads", { conjunction: "or", clauses: [clause("a"), clause("b")] }),
        ]),
      }),
    );
    renderApp("/dashboard/acme/meters", { session });
    await screen.findByRole("table", { name: "Meters" }, slow);
    expect(screen.getByText("1 condition")).toBeTruthy();
    expect(screen.getByText("2 conditions, any may match")).toBeTruthy();
    expect(screen.queryByText(/condition\(s\)/)).toBeNull();
  });
});

describe("the organization's initials", () => {
  it("are computed once: the first letters of the first two words, or the first two letters of one word", () => {
    expect(initialsOf("Acme Icons")).toBe("AI");
    expect(initialsOf("acme")).toBe("AC");
    expect(initialsOf("  Acme   Icons  Ltd ")).toBe("AI");
    expect(initialsOf("élan vital")).toBe("ÉV");
    expect(initialsOf("")).toBe("?");
  });

  it("are the same on the dashboard and on the checkout page", async () => {
    const checkout = renderWithTheme(
      <OrganizationHeader
        organization={{
          id: "org-1",
          name: "Acme Icons",
          slug: "acme",
          avatar_url: null,
          created_at: "2026-01-01T00:00:00Z",
          modified_at: null,
          proration_behavior: "invoice",
          allow_customer_updates: true,
        }}
      />,
    );
    expect(checkout.getByTestId("organization-initials").textContent).toBe("AI");
    checkout.unmount();
    stubServer(ownerAnswers());
    renderApp("/dashboard/acme", { session });
    await screen.findByRole("heading", { level: 1, name: "Acme Icons" }, slow);
    const shown = screen.getAllByTestId("organization-initials").map((e) => e.textContent);
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set(["AI"]));
  });
});

describe("the API reference", () => {
  it("is linked from the navigation, the home page and the access tokens page", async () => {
    stubServer(ownerAnswers({ "/v1/organization-access-tokens/": empty }));
    const { router } = renderApp("/dashboard/acme", { session });
    await screen.findByRole("heading", { level: 1, name: "Acme Icons" }, slow);
    const links = screen.getAllByRole("link", { name: /API reference/ });
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const link of links) expect(link.getAttribute("href")).toBe("/v1/docs");
    await router.navigate({ to: "/dashboard/$slug/settings/access-tokens", params: { slug: "acme" } });
    await screen.findByRole("heading", { level: 1, name: "Access tokens" }, slow);
    const onPage = screen.getAllByRole("link", { name: /API reference/ });
    expect(onPage.length).toBeGreaterThan(links.length - 1);
    expect(screen.getByRole("main").querySelector('a[href="/v1/docs"]')).not.toBeNull();
  });
});

describe("server refusals in words for people", () => {
  it("the sign-in page says a wrong password in a sentence, while the code stays the server's", async () => {
    stubServer({
      "/api/auth/get-session": null,
      "POST /api/auth/sign-in/email": answerWith(401, {
        code: "INVALID_EMAIL_OR_PASSWORD",
        message: "invalid email or password",
      }),
    });
    const { user } = renderApp("/sign-in");
    await user.type(await screen.findByLabelText(/^E-mail or username/, {}, slow), "ada@example.com");
    const password = screen.getByLabelText(/^Password/);
    await user.type(password, "wrong password");
    fireEvent.submit(password.closest("form")!);
    await waitFor(() => expect(describedBy(password)).toContain("The e-mail or password is not right."));
    expect(document.body.textContent).not.toContain("invalid email or password");
  });
});
