import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { portalClient } from "../src/portal/api";
import { BenefitsSection, connectErrorOf } from "../src/portal/benefits";
import { routeFetchTo } from "./fetch";
import { renderWithTheme } from "./render";

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
