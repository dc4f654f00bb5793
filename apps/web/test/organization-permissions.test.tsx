import { rolesCan } from "@kassa/contracts/organization";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { GeneralSettingsView } from "../src/features/organization/general-settings-view";
import { InvitationsView } from "../src/features/organization/invitations-view";
import { MembersTable } from "../src/features/organization/members-table";
import { TeamsView } from "../src/features/organization/teams-view";
import type { ServerError } from "../src/lib/auth-client";
import type { Invitation } from "../src/lib/organization";
import { organizationFixture, viewerAs } from "./fixtures";
import { describedBy, renderWithTheme } from "./render";
import { renderRouted } from "./router";

/**
 * Spec section 6 in the pages: an action the viewer's roles do not allow is not offered
 * (the server refuses it anyway; its refusal is shown when it comes).
 */

const ok = async () => null;

describe("the permission table shared with the server", () => {
  it("grants as spec section 6 says, any one of several roles sufficing", () => {
    expect(rolesCan("owner", "organization", "delete")).toBe(true);
    expect(rolesCan("admin", "organization", "delete")).toBe(false);
    expect(rolesCan("admin", "organization", "update")).toBe(true);
    expect(rolesCan("member", "invitation", "create")).toBe(false);
    expect(rolesCan("member,admin", "invitation", "create")).toBe(true);
    expect(rolesCan(" member , owner ", "organization", "delete")).toBe(true);
    expect(rolesCan("unknown", "team", "create")).toBe(false);
    expect(rolesCan("", "team", "create")).toBe(false);
    expect(rolesCan("member", "billing", "read")).toBe(true);
    expect(rolesCan("member", "billing", "write")).toBe(false);
    expect(rolesCan("admin", "billing", "write")).toBe(true);
  });
});

describe("organization settings by role", () => {
  const render = (who: "olivia" | "adam" | "mia") =>
    renderWithTheme(
      <GeneralSettingsView
        organization={organizationFixture()}
        viewer={viewerAs(who)}
        onSave={ok}
        onDelete={ok}
      />,
    );

  it("an owner may edit and delete the organization", () => {
    render("olivia");
    expect(screen.getByRole("button", { name: "Save changes" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Delete organization" })).toBeTruthy();
  });

  it("an admin may edit, but sees no delete-organization button", () => {
    render("adam");
    expect(screen.getByRole("button", { name: "Save changes" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Delete organization" })).toBeNull();
  });

  it("a member sees the settings read-only, with neither save nor delete", () => {
    render("mia");
    expect(screen.getByText("Only owners and admins can change these settings.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save changes" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete organization" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Add a field" })).toBeNull();
    expect((screen.getByLabelText(/^Name/) as HTMLInputElement).readOnly).toBe(true);
  });

  it("deleting needs the slug typed exactly", async () => {
    const onDelete = vi.fn(ok);
    const { user } = renderWithTheme(
      <GeneralSettingsView
        organization={organizationFixture()}
        viewer={viewerAs("olivia")}
        onSave={ok}
        onDelete={onDelete}
      />,
    );
    await user.click(screen.getByRole("button", { name: "Delete organization" }));
    const confirm = screen.getByRole("button", { name: "Delete for good" });
    await user.type(screen.getByLabelText(/^Slug of the organization/), "acm");
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    await user.type(screen.getByLabelText(/^Slug of the organization/), "e");
    expect((confirm as HTMLButtonElement).disabled).toBe(false);
    await user.click(confirm);
    await waitFor(() => expect(onDelete).toHaveBeenCalledTimes(1));
  });
});

describe("members by role", () => {
  const render = (who: "olivia" | "adam" | "mia", onLeave: () => Promise<ServerError | null> = vi.fn(ok)) => {
    const organization = organizationFixture();
    const view = renderWithTheme(
      <MembersTable
        members={organization.members}
        viewer={viewerAs(who, organization)}
        onChangeRoles={ok}
        onRemove={ok}
        onLeave={onLeave}
      />,
    );
    return { ...view, onLeave };
  };
  const actionsFor = (name: string) => screen.queryByRole("button", { name: `Actions for ${name}` });

  it("a member is offered no role changes and no removals, but may leave", () => {
    render("mia");
    expect(screen.getAllByRole("row")).toHaveLength(4);
    for (const name of ["Olivia Owner", "Adam Admin", "Mia Member"]) expect(actionsFor(name)).toBeNull();
    expect((screen.getByRole("button", { name: "Leave organization" }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });

  it("an admin manages members and admins, but not the owner", async () => {
    const { user } = render("adam");
    expect(actionsFor("Olivia Owner")).toBeNull();
    expect(actionsFor("Mia Member")).toBeTruthy();
    await user.click(actionsFor("Mia Member")!);
    expect(screen.getByRole("menuitem", { name: "Change roles" })).toBeTruthy();
    expect(screen.getByRole("menuitem", { name: "Remove from organization" })).toBeTruthy();
    await user.click(screen.getByRole("menuitem", { name: "Change roles" }));
    // Only an owner can make someone an owner.
    expect((screen.getByRole("checkbox", { name: "Owner" }) as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByRole("checkbox", { name: "Member" }) as HTMLInputElement).checked).toBe(true);
  });

  it("the sole owner is told before trying that they cannot leave", () => {
    render("olivia");
    expect(screen.getByText("You are the only owner")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Leave organization" }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect(actionsFor("Adam Admin")).toBeTruthy();
  });

  it("shows the server's refusal to leave in words for people", async () => {
    const onLeave = vi.fn(async () => ({
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
      message: "cannot leave as the only owner",
      status: 400,
    }));
    const { user } = render("adam", onLeave);
    await user.click(screen.getByRole("button", { name: "Leave organization" }));
    await user.click(screen.getByRole("button", { name: "Leave" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(
      "You are its only owner: make someone else an owner before you leave.",
    );
    expect(onLeave).toHaveBeenCalledTimes(1);
  });
});

describe("invitations by role", () => {
  const pending: Invitation = {
    id: "inv-1",
    organizationId: "org-1",
    email: "new@example.com",
    role: "member",
    status: "pending",
    inviterId: "user-olivia",
    expiresAt: "2099-01-01T00:00:00Z",
    createdAt: "2026-01-01T00:00:00Z",
  };
  const render = (who: "olivia" | "adam" | "mia") =>
    renderWithTheme(
      <InvitationsView
        organization={organizationFixture()}
        viewer={viewerAs(who)}
        invitations={{
          isPending: false,
          isError: false,
          error: null,
          data: [pending],
          refetch: () => undefined,
        }}
        onInvite={ok}
        onCancel={ok}
      />,
    );

  it("a member sees the invitations but no invite form and no cancel", () => {
    render("mia");
    expect(screen.queryByRole("form", { name: "Invite a member" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Send invitation" })).toBeNull();
    expect(screen.getByText("Only owners and admins can invite people.")).toBeTruthy();
    const table = screen.getByRole("table", { name: "Invitations" });
    expect(within(table).getByText("new@example.com")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Cancel the invitation of new@example.com" })).toBeNull();
  });

  it("an admin invites and cancels", () => {
    render("adam");
    expect(screen.getByRole("form", { name: "Invite a member" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Cancel the invitation of new@example.com" })).toBeTruthy();
  });

  it("sends the invitation with role and team, and shows the server's refusal at the e-mail field", async () => {
    const onInvite = vi.fn(async () => ({
      code: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION",
      message: "User is already invited to this organization",
      status: 400,
    }));
    const { user } = renderWithTheme(
      <InvitationsView
        organization={organizationFixture()}
        viewer={viewerAs("olivia")}
        invitations={{ isPending: false, isError: false, error: null, data: [], refetch: () => undefined }}
        onInvite={onInvite}
        onCancel={ok}
      />,
    );
    expect(screen.getByText("No invitations yet")).toBeTruthy();
    await user.type(screen.getByLabelText(/^E-mail/), "new@example.com");
    await user.click(screen.getByRole("button", { name: "Send invitation" }));
    await waitFor(() =>
      expect(onInvite).toHaveBeenCalledWith({ email: "new@example.com", role: "member", teamId: "" }),
    );
    const email = screen.getByLabelText(/^E-mail/);
    await waitFor(() => expect(email.getAttribute("aria-invalid")).toBe("true"));
    expect(describedBy(email)).toContain("User is already invited to this organization");
  });
});

describe("teams by role", () => {
  it("a member sees the teams but cannot create, rename or delete them", async () => {
    renderRouted(
      <TeamsView
        organization={organizationFixture()}
        viewer={viewerAs("mia")}
        slug="acme"
        onCreate={ok}
        onRename={ok}
        onDelete={ok}
      />,
    );
    await screen.findByRole("table", { name: "Teams" });
    expect(screen.getByRole("link", { name: "Acme" }).getAttribute("href")).toBe(
      "/dashboard/acme/settings/teams/team-1",
    );
    expect(screen.queryByRole("button", { name: "Create team" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Actions for the team Acme" })).toBeNull();
  });

  it("an admin may delete, and the server's last-team refusal is shown in words for people", async () => {
    const onDelete = vi.fn(async () => ({
      code: "UNABLE_TO_REMOVE_LAST_TEAM",
      message: "Unable to remove last team",
      status: 400,
    }));
    const { user } = renderRouted(
      <TeamsView
        organization={organizationFixture()}
        viewer={viewerAs("adam")}
        slug="acme"
        onCreate={ok}
        onRename={ok}
        onDelete={onDelete}
      />,
    );
    expect(await screen.findByRole("button", { name: "Create team" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Actions for the team Acme" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete" }));
    await user.click(screen.getByRole("button", { name: "Delete team" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("An organization keeps at least one team.");
  });
});
