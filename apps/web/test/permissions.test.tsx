import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp, sessionFor, stubServer } from "./app";

const sessionAnswers = (session: ReturnType<typeof sessionFor>) => ({
  "/api/auth/get-session": session,
  "/api/auth/list-accounts": [],
  "/api/auth/admin/list-users": { users: [], total: 0 },
  // `/dashboard` opens the person's first organization, or offers to create one.
  "/api/auth/organization/list": [],
});

describe("permission-dependent rendering", () => {
  it("offers no admin pages in the user menu to a person without the admin role", async () => {
    const session = sessionFor({ role: "user" });
    stubServer(sessionAnswers(session));
    const { user } = renderApp("/dashboard", { session });
    await user.click(await screen.findByRole("button", { name: "Account menu for Ada Lovelace" }));
    await screen.findByRole("menuitem", { name: "Account" });
    expect(screen.getByRole("menuitem", { name: "API keys" })).toBeTruthy();
    expect(screen.queryByRole("menuitem", { name: "Admin" })).toBeNull();
  });

  it("offers the admin pages to an admin", async () => {
    const session = sessionFor({ role: "admin" });
    stubServer(sessionAnswers(session));
    const { user } = renderApp("/dashboard", { session });
    await user.click(await screen.findByRole("button", { name: "Account menu for Ada Lovelace" }));
    const admin = await screen.findByRole("menuitem", { name: "Admin" });
    expect(admin.getAttribute("href")).toBe("/admin");
  });

  it("shows a non-admin who opens /admin that it is for admins, and asks the server for no users", async () => {
    const session = sessionFor({ role: "user" });
    const { requests } = stubServer(sessionAnswers(session));
    renderApp("/admin", { session });
    await screen.findByText(
      "These pages are for platform admins. Your account does not have the admin role.",
    );
    expect(screen.queryByRole("heading", { name: "Users" })).toBeNull();
    expect(requests.some((r) => r.path.startsWith("/api/auth/admin/"))).toBe(false);
  });

  it("lists users for an admin", async () => {
    const session = sessionFor({ role: "admin" });
    const { requests } = stubServer(sessionAnswers(session));
    renderApp("/admin?q=ada", { session });
    await screen.findByRole("heading", { level: 1, name: "Users" });
    await screen.findByText("No user matches “ada”.");
    const list = requests.find((r) => r.path === "/api/auth/admin/list-users");
    expect(list).toBeDefined();
  });

  it("pages through the users, keeping the page in the URL", async () => {
    const session = sessionFor({ role: "admin" });
    const users = Array.from({ length: 20 }, (_, i) => ({
      id: `user-${i}`,
      name: `User ${i}`,
      email: `user${i}@example.com`,
      role: "user",
      banned: false,
      emailVerified: true,
      createdAt: new Date().toISOString(),
    }));
    const { requests } = stubServer({
      ...sessionAnswers(session),
      "/api/auth/admin/list-users": { users, total: 45 },
    });
    const { user, router } = renderApp("/admin", { session });
    await screen.findByText("45 users");
    await user.click(screen.getByRole("button", { name: "Page 3" }));
    await waitFor(() => expect(router.state.location.search).toEqual({ page: 3 }));
    await waitFor(() =>
      expect(
        requests.some((r) => r.path === "/api/auth/admin/list-users" && r.query.get("offset") === "40"),
      ).toBe(true),
    );
  });

  it("shows the impersonation banner with a way back only while impersonating", async () => {
    const acting = sessionFor({ impersonatedBy: "33333333-3333-4333-8333-333333333333" });
    stubServer(sessionAnswers(acting));
    const view = renderApp("/dashboard", { session: acting });
    await screen.findByText("You are acting as Ada Lovelace (ada@example.com).");
    expect(screen.getByRole("button", { name: "Stop impersonating" })).toBeTruthy();
    view.unmount();

    const plain = sessionFor();
    stubServer(sessionAnswers(plain));
    renderApp("/dashboard", { session: plain });
    await screen.findByRole("heading", { name: "Welcome, Ada Lovelace" });
    await waitFor(() => expect(screen.queryByText(/You are acting as/)).toBeNull());
  });

  it("sends a visitor who opens an account page to sign in", async () => {
    stubServer({ "/api/auth/get-session": null });
    const { router } = renderApp("/account/api-keys", { session: null });
    await waitFor(() => expect(router.state.location.pathname).toBe("/sign-in"));
  });
});
