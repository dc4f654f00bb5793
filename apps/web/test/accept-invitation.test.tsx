import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp, sessionFor, stubServer } from "./app";

/** The invitee's page (`/accept-invitation/{id}`), in the real route tree against a stubbed server. */

const id = "44444444-4444-4444-8444-444444444444";
const invitation = {
  id,
  organizationId: "org-1",
  email: "ada@example.com",
  role: "admin",
  status: "pending",
  inviterId: "user-olivia",
  expiresAt: "2099-01-01T00:00:00.000Z",
  organizationName: "Acme",
  organizationSlug: "acme",
  inviterEmail: "olivia@example.com",
};

describe("the invitation page", () => {
  it("signed out: offers sign-in and sign-up with the invited address, both coming back here", async () => {
    stubServer({ "/api/auth/get-session": null });
    renderApp(`/accept-invitation/${id}?email=ada%40example.com`, { session: null });
    // The first render loads the route's lazy modules.
    await screen.findByRole(
      "heading",
      { name: "You are invited to an organization on Kassa" },
      { timeout: 8000 },
    );
    expect(screen.getByText("The invitation is for ada@example.com.")).toBeTruthy();
    const back = encodeURIComponent(`/accept-invitation/${id}?email=ada%40example.com`);
    for (const name of ["Sign in", "Create an account"]) {
      const href = screen.getByRole("link", { name }).getAttribute("href") ?? "";
      expect(href).toContain("email=ada%40example.com");
      expect(href).toContain(`redirect=${back}`);
    }
  });

  it("signed in as the invitee: shows organization, inviter and role, and accepting opens the organization", async () => {
    const { requests } = stubServer({
      "/api/auth/get-session": sessionFor(),
      "/api/auth/organization/get-invitation": invitation,
      "POST /api/auth/organization/accept-invitation": { invitation: { ...invitation, status: "accepted" } },
      "/api/auth/organization/list": [{ id: "org-1", name: "Acme", slug: "acme", createdAt: "2026-01-01" }],
      "POST /api/auth/organization/set-active": {},
      "/api/auth/organization/get-full-organization": {
        id: "org-1",
        name: "Acme",
        slug: "acme",
        createdAt: "2026-01-01",
        members: [],
        invitations: [],
        teams: [],
      },
    });
    const { user, router } = renderApp(`/accept-invitation/${id}`, { session: sessionFor() });
    await screen.findByRole("heading", { name: "Join Acme" }, { timeout: 8000 });
    const details = screen.getByRole("table", { name: "The invitation" });
    expect(within(details).getByText("olivia@example.com")).toBeTruthy();
    expect(within(details).getByText("Admin")).toBeTruthy();
    expect(requests.find((r) => r.path.endsWith("/get-invitation"))?.query.get("id")).toBe(id);

    await user.click(screen.getByRole("button", { name: "Accept invitation" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard/acme"));
    expect(requests.find((r) => r.path.endsWith("/accept-invitation"))?.body).toEqual({ invitationId: id });
  });

  it("signed in as someone else: the server's refusal, in words for people, and a way to switch accounts", async () => {
    // get-invitation answers 403 in the server's words.
    const { fetchStub } = stubServer({ "/api/auth/get-session": sessionFor() });
    fetchStub.mockImplementation(async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname.endsWith("/get-invitation"))
        return new Response(
          JSON.stringify({
            code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
            message: "not the recipient of the invitation",
          }),
          { status: 403, headers: { "content-type": "application/json" } },
        );
      return new Response("null", { status: 200, headers: { "content-type": "application/json" } });
    });
    renderApp(`/accept-invitation/${id}`, { session: sessionFor() });
    await screen.findByRole("heading", { name: "This invitation cannot be used" }, { timeout: 8000 });
    expect(screen.getByRole("alert").textContent).toContain(
      "This invitation was sent to another e-mail address.",
    );
    expect(screen.getByRole("button", { name: "Sign in as someone else" })).toBeTruthy();
  });
});
