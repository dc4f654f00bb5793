import { fireEvent, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { portalClient } from "../src/portal/api";
import { BenefitsSection, connectErrorOf } from "../src/portal/benefits";
import { routeFetchTo } from "./fetch";
import { renderWithTheme, slow } from "./render";

afterEach(() => {
  routeFetchTo(null);
  vi.restoreAllMocks();
});

const grant = (type: "github_repository" | "discord", granted: boolean) => ({
  id: `grant-${type}`,
  created_at: "2025-01-01T00:00:00Z",
  modified_at: null,
  granted_at: granted ? "2025-01-01T00:00:00Z" : null,
  revoked_at: null,
  is_granted: granted,
  is_revoked: false,
  customer_id: "c-1",
  benefit_id: `b-${type}`,
  subscription_id: null,
  order_id: "o-1",
  error: granted
    ? null
    : {
        message: `The customer needs to connect their ${type === "discord" ? "Discord" : "GitHub"} account`,
        type: "BenefitActionRequiredError",
        timestamp: "2025-01-01T00:00:00Z",
      },
  properties: granted ? { repository_owner: "acme", repository_name: "engine" } : {},
  benefit: {
    id: `b-${type}`,
    type,
    description: type === "discord" ? "Members' room" : "Source access",
    properties:
      type === "discord" ? { guild_id: "1" } : { repository_owner: "acme", repository_name: "engine" },
  },
});

function stub(items: unknown[]) {
  const seen: string[] = [];
  routeFetchTo((async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url, "http://localhost");
    seen.push(`${url.pathname}${url.search}`);
    const body = url.pathname.endsWith("/oauth-accounts/authorize")
      ? { url: "https://github.example/login/oauth/authorize?state=s" }
      : url.pathname.endsWith("/customers/me")
        ? { id: "c-1", oauth_accounts: {} }
        : { items, pagination: { total_count: items.length, max_page: 1 } };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }) as typeof fetch);
  return seen;
}

describe("connecting an account in the portal", () => {
  it("a grant waiting for GitHub offers to connect; the button asks the server and leaves for GitHub", async () => {
    const seen = stub([grant("github_repository", false), grant("discord", false)]);
    const assign = vi.fn();
    vi.spyOn(window, "location", "get").mockReturnValue({
      ...window.location,
      origin: "http://localhost",
      pathname: "/portal/acme/benefits",
      search: "",
      assign,
    } as unknown as Location);
    renderWithTheme(
      <BenefitsSection client={portalClient("polar_cst_x")} organizationId="org-1" onExpired={() => {}} />,
    );
    expect(await screen.findByText("The customer needs to connect their GitHub account")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Connect Discord" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Connect GitHub" }));
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith("https://github.example/login/oauth/authorize?state=s"),
    );
    const authorize = seen.find((p) => p.includes("/oauth-accounts/authorize"))!;
    const query = new URL(authorize, "http://localhost").searchParams;
    expect(query.get("platform")).toBe("github");
    expect(query.get("return_to")).toBe("http://localhost/portal/acme/benefits");
  });

  it("a granted repository says where the invitation is; no button", async () => {
    stub([grant("github_repository", true)]);
    renderWithTheme(
      <BenefitsSection client={portalClient("polar_cst_x")} organizationId="org-1" onExpired={() => {}} />,
    );
    expect((await screen.findByTestId("benefit-github")).textContent).toContain(
      "GitHub invited you to acme/engine",
    );
    expect(screen.queryByRole("button", { name: "Connect GitHub" })).toBeNull();
  });

  it("a granted repository names the account with the access; choosing another sends it, and the list reloads", async () => {
    const base = grant("github_repository", true);
    const granted = { ...base, properties: { ...base.properties, account_id: "111" } };
    const sent: { method: string; path: string; body: unknown }[] = [];
    routeFetchTo((async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url, "http://localhost");
      const body = request.method === "GET" ? null : await request.json();
      sent.push({ method: request.method, path: url.pathname, body });
      const json = (value: unknown) =>
        new Response(JSON.stringify(value), { status: 200, headers: { "content-type": "application/json" } });
      if (url.pathname.endsWith("/customers/me"))
        return json({
          id: "c-1",
          oauth_accounts: {
            "github:111": { account_id: "111", account_username: "octo-one" },
            "github:222": { account_id: "222", account_username: "octo-two" },
            "discord:9": { account_id: "9", account_username: "not-github" },
          },
        });
      if (request.method === "PATCH") return json(granted);
      return json({ items: [granted], pagination: { total_count: 1, max_page: 1 } });
    }) as typeof fetch);
    const user = userEvent.setup();
    renderWithTheme(
      <BenefitsSection client={portalClient("polar_cst_x")} organizationId="org-1" onExpired={() => {}} />,
    );
    const select = (
      await screen.findAllByLabelText("GitHub account with the access", {}, slow)
    )[0] as HTMLInputElement;
    expect(select.value).toBe("octo-one");
    await user.click(select);
    expect(screen.queryByRole("option", { name: "not-github" })).toBeNull();
    await user.click(await screen.findByRole("option", { name: "octo-two" }));
    await waitFor(() => expect(sent.some((r) => r.method === "PATCH")).toBe(true));
    const patch = sent.find((r) => r.method === "PATCH")!;
    expect(patch.path).toBe("/v1/customer-portal/benefit-grants/grant-github_repository");
    expect(patch.body).toEqual({ benefit_type: "github_repository", properties: { account_id: "222" } });
    // The grants are read again after the change.
    await waitFor(() => expect(sent.filter((r) => r.path.endsWith("/benefit-grants/")).length).toBe(2));
    await user.click(select);
    await user.click(await screen.findByRole("option", { name: "No account (remove the access)" }));
    await waitFor(() => expect(sent.filter((r) => r.method === "PATCH").length).toBe(2));
    expect(sent.filter((r) => r.method === "PATCH")[1]!.body).toEqual({
      benefit_type: "github_repository",
      properties: { account_id: null },
    });
  });

  it("reads the callback's error from the address", () => {
    expect(connectErrorOf("?error=access_denied&error_platform=discord")).toEqual({
      platform: "Discord",
      message: "You declined the access.",
    });
    expect(connectErrorOf("?error=Failed%20to%20get%20access%20token.&error_platform=github")?.platform).toBe(
      "GitHub",
    );
    expect(connectErrorOf("")).toBeNull();
  });
});
